import BackbeatSupport
import CAlsaLog

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The messages OpenAL Soft and ALSA print, kept off the terminal and handed
/// to Backbeat's log handler instead.
///
/// Both libraries read their settings once, at the first ALC call of the
/// process, so ``prepare()`` runs before every ALC entry point Backbeat uses.
/// With no handler, OpenAL Soft's log level is 0 (unless the user set
/// `ALSOFT_LOGLEVEL`) and ALSA's messages are dropped. With a handler, ALSA's
/// messages are passed on as they come and OpenAL Soft prints its own errors.
package enum ALLog {
    private struct State {
        var handler: (@Sendable (String) -> Void)?
        var prepared = false
    }
    private static let state = LockedValueBox(State())

    /// Receives each library message (one line, no newline). Set it before
    /// the first engine or device query of the process.
    package static var handler: (@Sendable (String) -> Void)? {
        get { state.withLockedValue { $0.handler } }
        set { state.withLockedValue { $0.handler = newValue } }
    }

    /// Sets the libraries up before the first ALC call; later calls do nothing.
    package static func prepare() {
        let first = state.withLockedValue { state -> Bool in
            guard !state.prepared else { return false }
            state.prepared = true
            // OpenAL Soft 1.19.1 has no log callback, and its log file is
            // buffered until exit, so its lines cannot be passed on as they
            // come: without a handler it is silenced, with one it prints its
            // errors itself, as it would by default.
            if state.handler == nil, getenv("ALSOFT_LOGLEVEL") == nil { setenv("ALSOFT_LOGLEVEL", "0", 1) }
            return true
        }
        guard first else { return }
        _ = backbeat_alsa_route_errors { message in
            guard let message else { return }
            ALLog.emit(String(cString: message))
        }
    }

    /// Passes one message to the handler, if there is one.
    package static func emit(_ message: String) {
        state.withLockedValue { $0.handler }?(message)
    }
}
