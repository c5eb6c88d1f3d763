#ifndef BACKBEAT_CZIP_SHIM_H
#define BACKBEAT_CZIP_SHIM_H
#include <zip.h>
#endif
