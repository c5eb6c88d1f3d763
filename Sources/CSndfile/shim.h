#ifndef BACKBEAT_CSNDFILE_SHIM_H
#define BACKBEAT_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
