#ifndef BACKBEAT_COPENAL_SHIM_H
#define BACKBEAT_COPENAL_SHIM_H
// Extension prototypes (loopback, deferred updates, device clock, ...) are
// exported by OpenAL Soft; this makes alext.h declare them.
#define AL_ALEXT_PROTOTYPES 1
#include <AL/al.h>
#include <AL/alc.h>
#include <AL/alext.h>
#include <AL/efx.h>
#include "efx_presets.h"
#endif
