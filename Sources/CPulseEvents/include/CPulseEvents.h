#ifndef BACKBEAT_CPULSEEVENTS_H
#define BACKBEAT_CPULSEEVENTS_H

/// A connection to the PulseAudio server that reports server changes (the
/// default sink among them), through libpulse.so.0 loaded at run time: the
/// library OpenAL Soft's PulseAudio backend loads too, so Backbeat neither
/// links it nor needs its headers.
typedef struct backbeat_pulse_events backbeat_pulse_events;

/// Called on libpulse's own thread for each server change event.
typedef void (*backbeat_pulse_notify)(void *userdata);

/// Connects to the server that `PULSE_SERVER` (or the user's default) names,
/// without starting one, and subscribes to server events once connected;
/// `notify(userdata)` runs for each. Returns at once (the connection is made
/// on libpulse's thread), or NULL when libpulse cannot be loaded or the
/// connection cannot even begin.
backbeat_pulse_events *backbeat_pulse_events_start(const char *name, backbeat_pulse_notify notify, void *userdata);

/// 1 while the connection is being made or is up, 0 once it failed or ended
/// (the server went away).
int backbeat_pulse_events_alive(backbeat_pulse_events *events);

/// Disconnects, joins libpulse's thread and frees everything; `notify` is
/// not called after it returns. Never waits on the server.
void backbeat_pulse_events_stop(backbeat_pulse_events *events);

#endif
