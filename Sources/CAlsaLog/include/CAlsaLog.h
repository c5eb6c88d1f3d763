#ifndef BACKBEAT_CALSALOG_H
#define BACKBEAT_CALSALOG_H

/// Receives one formatted ALSA library message (no trailing newline).
typedef void (*backbeat_alsa_message_sink)(const char *message);

/// Routes the ALSA library's error messages to `sink` instead of stderr.
/// ALSA's handler is variadic, which Swift cannot define, so this formats
/// each message here and hands the text on. Uses the libasound.so.2 already
/// loaded by OpenAL Soft (dlopen finds the same instance). Returns 0 when the
/// handler is in place, -1 when libasound is not available (then ALSA is not
/// in use and prints nothing).
int backbeat_alsa_route_errors(backbeat_alsa_message_sink sink);

#endif
