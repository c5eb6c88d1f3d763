#ifndef BACKBEAT_CEBUR128_SHIM_H
#define BACKBEAT_CEBUR128_SHIM_H
#include <ebur128.h>
#endif
