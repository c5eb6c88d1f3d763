import BackbeatTesting
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What the device suites share: a private PulseAudio server with one null
/// sink (``PrivateSoundServer``), a song to stream, and `backbeat bench
/// device-scene` children playing one side of ``DeviceScene`` on it. The
/// `device` suite and the `acoustics` suite's `device_underruns` use it.
final class DeviceSceneRunner {
    /// The sink the children play to.
    let sink = "Backbeat-Bench"
    let server: PrivateSoundServer
    /// A folder of its own, removed by ``stop()``.
    let directory: URL
    /// The song the scenes stream.
    let song: URL
    /// The children's environment: the private server, OpenAL Soft on Pulse.
    let environment: [String: String]
    /// Each child's length in seconds.
    let seconds: Int
    let executable: String

    /// Starts the server and writes the song.
    ///
    /// - Parameter seconds: Each child's length in seconds (the song lasts 5 s longer).
    /// - Throws: ``BenchError`` when run from anything but the `backbeat` executable, or the server does not start.
    init(seconds: Int) throws {
        executable = try selfPath()
        self.seconds = seconds
        server = try PrivateSoundServer(sinks: [sink])
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("backbeat-bench-device-\(getpid())-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            song = directory.appendingPathComponent("song.ogg")
            try StreamSuite.writeSong(song, seconds: seconds + 5, seed: 3)
        } catch {
            server.stop()
            throw error
        }
        var environment = server.environment
        environment["ALSOFT_DRIVERS"] = "pulse"
        environment["ALSOFT_CONF"] = ""
        self.environment = environment
    }

    /// Plays one side of the scene in a child and returns its CPU time
    /// (user + system, from `wait4`) and its report.
    ///
    /// - Parameters:
    ///   - side: The side to play.
    ///   - latency: The child's `--latency` word.
    ///   - length: Seconds to play, if not the runner's `seconds` (no longer than them: the song is that long).
    func child(_ side: DeviceScene.Side, latency: String = "default", length: Int? = nil) throws -> (
        cpu: Double, result: DeviceScene.Result
    ) {
        let file = directory.appendingPathComponent("result-\(UUID().uuidString)")
        let run = try spawn(
            executable,
            [
                "bench", "device-scene", "--side", side.rawValue, "--seconds", String(min(length ?? seconds, seconds)),
                "--latency", latency, "--song", song.path, "--result", file.path,
            ],
            environment: environment)
        guard run.status == 0, let data = FileManager.default.contents(atPath: file.path),
            let result = DeviceScene.Result(line: String(decoding: data, as: UTF8.self))
        else { throw BenchError("device-scene --side \(side.rawValue) failed (status \(run.status))") }
        let cpu = Self.seconds(run.usage.ru_utime) + Self.seconds(run.usage.ru_stime)
        return (cpu, result)
    }

    /// Stops the server and removes the folder.
    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
}
