import BackbeatSupport
import CPulseEvents

/// Server change events from the PulseAudio server OpenAL Soft plays to (the
/// default sink changing is one), through the libpulse that OpenAL Soft
/// loads, on libpulse's own thread. Backbeat neither links libpulse nor
/// needs its headers; without it, or without a server, there are no events.
package final class SoundServerEvents: @unchecked Sendable {
    // @unchecked: `handle` is set at init and freed once, by stop(), under `stopped`.
    private let handle: OpaquePointer
    private let box: Unmanaged<Box>
    private let stopped = LockedValueBox(false)

    private final class Box {
        let onChange: @Sendable () -> Void
        init(_ onChange: @escaping @Sendable () -> Void) { self.onChange = onChange }
    }

    /// Connects (without waiting for the server) and calls `onChange` on
    /// libpulse's thread for each server change. Nil when libpulse cannot be
    /// loaded or the connection cannot begin.
    package init?(name: String, onChange: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(onChange))
        let notify: backbeat_pulse_notify = { userdata in
            guard let userdata else { return }
            Unmanaged<Box>.fromOpaque(userdata).takeUnretainedValue().onChange()
        }
        guard let handle = backbeat_pulse_events_start(name, notify, box.toOpaque()) else {
            box.release()
            return nil
        }
        self.handle = handle
        self.box = box
    }

    deinit { stop() }

    /// Whether the connection is being made or is up (false once the server went away).
    package var isAlive: Bool { !stopped.withLockedValue { $0 } && backbeat_pulse_events_alive(handle) != 0 }

    /// Disconnects; `onChange` is not called after this returns. Idempotent.
    package func stop() {
        let first = stopped.withLockedValue { stopped -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        backbeat_pulse_events_stop(handle)
        box.release()
    }
}
