#include "CPulseEvents.h"
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

// The few libpulse declarations used here, as its stable ABI defines them
// (pulse/def.h, pulse/context.h, pulse/thread-mainloop.h, pulse/subscribe.h).
typedef struct pa_threaded_mainloop pa_threaded_mainloop;
typedef struct pa_mainloop_api pa_mainloop_api;
typedef struct pa_context pa_context;
typedef struct pa_operation pa_operation;

enum { PA_CONTEXT_READY = 4, PA_CONTEXT_FAILED = 5, PA_CONTEXT_TERMINATED = 6 };
enum { PA_CONTEXT_NOAUTOSPAWN = 1 };
enum { PA_SUBSCRIPTION_MASK_SERVER = 0x0080 };
enum { PA_SUBSCRIPTION_EVENT_FACILITY_MASK = 0x000F, PA_SUBSCRIPTION_EVENT_SERVER = 0x0007 };

typedef void (*state_callback)(pa_context *, void *);
typedef void (*subscribe_callback)(pa_context *, int, uint32_t, void *);
typedef void (*success_callback)(pa_context *, int, void *);

static struct {
    int loaded;
    pa_threaded_mainloop *(*mainloop_new)(void);
    int (*mainloop_start)(pa_threaded_mainloop *);
    void (*mainloop_stop)(pa_threaded_mainloop *);
    void (*mainloop_free)(pa_threaded_mainloop *);
    void (*mainloop_lock)(pa_threaded_mainloop *);
    void (*mainloop_unlock)(pa_threaded_mainloop *);
    pa_mainloop_api *(*mainloop_get_api)(pa_threaded_mainloop *);
    pa_context *(*context_new)(pa_mainloop_api *, const char *);
    void (*context_set_state_callback)(pa_context *, state_callback, void *);
    void (*context_set_subscribe_callback)(pa_context *, subscribe_callback, void *);
    int (*context_connect)(pa_context *, const char *, int, const void *);
    int (*context_get_state)(pa_context *);
    pa_operation *(*context_subscribe)(pa_context *, int, success_callback, void *);
    void (*context_disconnect)(pa_context *);
    void (*context_unref)(pa_context *);
    void (*operation_unref)(pa_operation *);
} pa;

static int load(void) {
    int loaded = __atomic_load_n(&pa.loaded, __ATOMIC_ACQUIRE);
    if (loaded) return loaded > 0;
    void *library = dlopen("libpulse.so.0", RTLD_NOW);
    int ok = library != NULL;
#define FIND(field, symbol)                                                                                \
    if (ok) {                                                                                               \
        *(void **)(&pa.field) = dlsym(library, symbol);                                                     \
        ok = pa.field != NULL;                                                                              \
    }
    FIND(mainloop_new, "pa_threaded_mainloop_new")
    FIND(mainloop_start, "pa_threaded_mainloop_start")
    FIND(mainloop_stop, "pa_threaded_mainloop_stop")
    FIND(mainloop_free, "pa_threaded_mainloop_free")
    FIND(mainloop_lock, "pa_threaded_mainloop_lock")
    FIND(mainloop_unlock, "pa_threaded_mainloop_unlock")
    FIND(mainloop_get_api, "pa_threaded_mainloop_get_api")
    FIND(context_new, "pa_context_new")
    FIND(context_set_state_callback, "pa_context_set_state_callback")
    FIND(context_set_subscribe_callback, "pa_context_set_subscribe_callback")
    FIND(context_connect, "pa_context_connect")
    FIND(context_get_state, "pa_context_get_state")
    FIND(context_subscribe, "pa_context_subscribe")
    FIND(context_disconnect, "pa_context_disconnect")
    FIND(context_unref, "pa_context_unref")
    FIND(operation_unref, "pa_operation_unref")
#undef FIND
    // Several threads may race here; they find the same symbols.
    __atomic_store_n(&pa.loaded, ok ? 1 : -1, __ATOMIC_RELEASE);
    return ok;
}

struct backbeat_pulse_events {
    pa_threaded_mainloop *mainloop;
    pa_context *context;
    backbeat_pulse_notify notify;
    void *userdata;
    int alive;
};

static void on_event(pa_context *context, int type, uint32_t index, void *userdata) {
    (void)context;
    (void)index;
    backbeat_pulse_events *events = userdata;
    if ((type & PA_SUBSCRIPTION_EVENT_FACILITY_MASK) == PA_SUBSCRIPTION_EVENT_SERVER) events->notify(events->userdata);
}

static void on_state(pa_context *context, void *userdata) {
    backbeat_pulse_events *events = userdata;
    int state = pa.context_get_state(context);
    if (state == PA_CONTEXT_READY) {
        pa_operation *operation = pa.context_subscribe(context, PA_SUBSCRIPTION_MASK_SERVER, NULL, NULL);
        if (operation) pa.operation_unref(operation);
    } else if (state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED) {
        __atomic_store_n(&events->alive, 0, __ATOMIC_RELEASE);
    }
}

backbeat_pulse_events *backbeat_pulse_events_start(const char *name, backbeat_pulse_notify notify, void *userdata) {
    if (!notify || !load()) return NULL;
    backbeat_pulse_events *events = calloc(1, sizeof *events);
    if (!events) return NULL;
    events->notify = notify;
    events->userdata = userdata;
    events->alive = 1;
    events->mainloop = pa.mainloop_new();
    if (!events->mainloop) {
        free(events);
        return NULL;
    }
    events->context = pa.context_new(pa.mainloop_get_api(events->mainloop), name ? name : "Backbeat");
    if (!events->context) {
        pa.mainloop_free(events->mainloop);
        free(events);
        return NULL;
    }
    pa.context_set_state_callback(events->context, on_state, events);
    pa.context_set_subscribe_callback(events->context, on_event, events);
    if (pa.context_connect(events->context, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL) < 0 ||
        pa.mainloop_start(events->mainloop) < 0) {
        pa.context_set_state_callback(events->context, NULL, NULL);
        pa.context_set_subscribe_callback(events->context, NULL, NULL);
        pa.context_disconnect(events->context);
        pa.context_unref(events->context);
        pa.mainloop_free(events->mainloop);
        free(events);
        return NULL;
    }
    return events;
}

int backbeat_pulse_events_alive(backbeat_pulse_events *events) {
    return events ? __atomic_load_n(&events->alive, __ATOMIC_ACQUIRE) : 0;
}

void backbeat_pulse_events_stop(backbeat_pulse_events *events) {
    if (!events) return;
    pa.mainloop_lock(events->mainloop);
    pa.context_set_state_callback(events->context, NULL, NULL);
    pa.context_set_subscribe_callback(events->context, NULL, NULL);
    pa.context_disconnect(events->context);
    pa.context_unref(events->context);
    pa.mainloop_unlock(events->mainloop);
    pa.mainloop_stop(events->mainloop);
    pa.mainloop_free(events->mainloop);
    free(events);
}
