#ifndef BACKBEAT_CDBUS_SHIM_H
#define BACKBEAT_CDBUS_SHIM_H
#include <dbus/dbus.h>
#endif
