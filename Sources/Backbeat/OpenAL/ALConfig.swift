import Foundation

/// OpenAL Soft 1.19 ignores `ALC_REFRESH` for playback devices and takes its
/// period size and count only from a config file, read once when the library
/// first initialises. Backbeat writes that file and points `ALSOFT_CONF` at it
/// before the first ALC call of the process, unless the user set `ALSOFT_CONF`.
enum ALConfig {
    private struct State { var applied: AudioEngine.OutputLatency?; var userConfig: String? }
    private static let state = NSLock()
    nonisolated(unsafe) private static var current = State()  // guarded by `state`

    /// Writes the config for `latency` unless a config is already in effect.
    /// Returns the latency in effect for playback devices, or nil when the
    /// user's own `ALSOFT_CONF` decides.
    @discardableResult
    static func prepare(_ latency: AudioEngine.OutputLatency) -> AudioEngine.OutputLatency? {
        state.withLock {
            if let applied = current.applied { return applied }
            if current.userConfig != nil { return nil }
            if let user = ProcessInfo.processInfo.environment["ALSOFT_CONF"], !user.isEmpty {
                current.userConfig = user
                return nil
            }
            let text = """
                # Written by Backbeat: OpenAL Soft takes playback latency only from its config.
                [general]
                period_size = \(latency.periodSize)
                periods = \(latency.periods)

                """
            let url = FileManager.default.temporaryDirectory
                .appendingPathComponent("backbeat-openal-\(latency.periodSize)x\(latency.periods).conf")
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

    /// The latency Backbeat configured, if it configured one.
    static var latencyInEffect: AudioEngine.OutputLatency? { state.withLock { current.applied } }
}
