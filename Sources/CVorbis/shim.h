#ifndef BACKBEAT_CVORBIS_SHIM_H
#define BACKBEAT_CVORBIS_SHIM_H
#include <vorbis/vorbisfile.h>
#include <vorbis/vorbisenc.h>
#endif
