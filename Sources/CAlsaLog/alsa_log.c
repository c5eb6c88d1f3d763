#include "CAlsaLog.h"
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>

typedef void (*alsa_error_handler)(const char *file, int line, const char *function, int err, const char *fmt, ...);
typedef int (*alsa_set_handler)(alsa_error_handler handler);

static backbeat_alsa_message_sink current_sink;

static void route(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)err;
    backbeat_alsa_message_sink sink = __atomic_load_n(&current_sink, __ATOMIC_ACQUIRE);
    if (!sink) return;
    char text[512];
    int used = snprintf(text, sizeof text, "ALSA lib %s:%d:(%s) ", file ? file : "?", line, function ? function : "?");
    if (used < 0) return;
    if ((size_t)used < sizeof text) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(text + used, sizeof text - (size_t)used, fmt ? fmt : "", args);
        va_end(args);
    }
    sink(text);
}

int backbeat_alsa_route_errors(backbeat_alsa_message_sink sink) {
    void *library = dlopen("libasound.so.2", RTLD_NOW);
    if (!library) return -1;
    alsa_set_handler set = (alsa_set_handler)dlsym(library, "snd_lib_error_set_handler");
    if (!set) return -1;
    __atomic_store_n(&current_sink, sink, __ATOMIC_RELEASE);
    return set(route) == 0 ? 0 : -1;
}
