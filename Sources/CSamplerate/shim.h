#ifndef BACKBEAT_CSAMPLERATE_SHIM_H
#define BACKBEAT_CSAMPLERATE_SHIM_H
#include <samplerate.h>
#endif
