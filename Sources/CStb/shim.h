#ifndef BACKBEAT_CSTB_SHIM_H
#define BACKBEAT_CSTB_SHIM_H
// libstb ships the implementations compiled into libstb.so; these are declarations only.
#include <stb_image.h>
#include <stb_image_resize.h>
#include <stb_image_write.h>
#endif
