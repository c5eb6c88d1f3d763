import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// OpenAL Soft 1.19 ignores `ALC_REFRESH` for playback devices and takes its
/// period size and count only from a config file, read once when the library
/// first initialises. Backbeat writes that file and points `ALSOFT_CONF` at it
/// before the first ALC call of the process, unless the user set `ALSOFT_CONF`.
package enum ALConfig {
    /// A playback device's period size and count, in frames.
    package struct Periods: Sendable, Hashable {
        package var size: Int
        package var count: Int
        package init(size: Int, count: Int) {
            self.size = size
            self.count = count
        }
    }

    private struct State {
        var applied: Periods?
        var userConfig: String?
    }
    private static let state = LockedValueBox(State())

    /// Writes the config for `periodSize` × `periods` frames unless a config is
    /// already in effect. Returns the periods in effect for playback devices,
    /// or nil when the user's own `ALSOFT_CONF` decides.
    @discardableResult
    package static func prepare(periodSize: Int, periods: Int) -> Periods? {
        let latency = Periods(size: periodSize, count: periods)
        return state.withLockedValue { current in
            if let applied = current.applied { return applied }
            if current.userConfig != nil { return nil }
            if let user = ProcessInfo.processInfo.environment["ALSOFT_CONF"], !user.isEmpty {
                current.userConfig = user
                return nil
            }
            let text = """
                # Written by Backbeat: OpenAL Soft takes playback latency only from its config.
                [general]
                period_size = \(latency.size)
                periods = \(latency.count)

                """
            let url = FileManager.default.temporaryDirectory
                .appendingPathComponent("backbeat-openal-\(latency.size)x\(latency.count).conf")
            do {
                try text.write(to: url, atomically: true, encoding: .utf8)
                setenv("ALSOFT_CONF", url.path, 1)
                current.applied = latency
                return latency
            } catch {
                // No writable temp dir: OpenAL Soft's own defaults apply.
                current.userConfig = "(defaults)"
                return nil
            }
        }
    }

    /// The periods Backbeat configured, if it configured any.
    package static var periodsInEffect: Periods? { state.withLockedValue { $0.applied } }
}

extension ALConfig {
    private static let identity = LockedValueBox<String?>(nil)

    /// The application name the sound server shows for this process's
    /// streams; nil leaves it to the server (the executable's name).
    package static var applicationName: String? {
        get { identity.withLockedValue { $0 } }
        set { identity.withLockedValue { $0 = newValue } }
    }

    /// Puts the game's identity where PulseAudio reads it, just before a
    /// device opens (each open is a new PulseAudio client, which reads these
    /// variables then): `PULSE_PROP_OVERRIDE_application.name` for the name,
    /// which reaches the stream, and `PULSE_PROP_media.role=game`, which
    /// reaches only the client (OpenAL Soft 1.19.1 clears the stream's
    /// role). A role or name the user set in the environment is kept.
    package static func applyApplicationIdentity() {
        if let name = applicationName, !name.isEmpty {
            // Bounded and one line: it is a property value, not a script.
            let clean = String(name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(128))
            setenv("PULSE_PROP_OVERRIDE_application.name", clean, 1)
        }
        setenv("PULSE_PROP_media.role", "game", 0)
    }
}
