import Backbeat
import BackbeatTesting
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The `device` suite's control: a continuous tone played by `pacat`,
/// PulseAudio's own client (no OpenAL, no Backbeat), into the same sink
/// with the same buffer as an OpenAL stream at a period size and count.
///
/// OpenAL Soft 1.19 asks the server for `tlength` = size × count frames and
/// `minreq` = size frames with `PA_STREAM_ADJUST_LATENCY`; `pacat` asks for
/// the same with `--latency` and `--process-time` (bytes of its float
/// stereo frames), and sets the same flag. So a gap the control hears is a
/// gap any client of that buffer hears on this machine at that moment: the
/// scheduler's or the server's share of the dropouts, not Backbeat's.
struct ControlTone {
    private let pacat: String
    /// `pacat`'s arguments: the tone's format, the buffer, and the file.
    let arguments: [String]
    private let environment: [String: String]

    /// Writes the tone (440 Hz at 0.2, float stereo at the server's rate) and finds `pacat`.
    ///
    /// - Parameters:
    ///   - directory: where the tone's raw file goes (the suite's scratch directory).
    ///   - seconds: how long the tone lasts, so how long ``play()`` plays.
    ///   - latency: the period size and count whose buffer the control asks for.
    ///   - environment: the private server's client environment.
    /// - Throws: ``BenchError`` when `pacat` is not on `PATH` or the file cannot be written.
    init(directory: URL, seconds: Int, latency: AudioEngine.OutputLatency, environment: [String: String]) throws {
        guard let pacat = Self.program("pacat") else {
            throw BenchError("the device suite's control needs pacat (pulseaudio-utils)")
        }
        let rate = PrivateSoundServer.sampleRate
        let frames = max(1, seconds) * rate
        var samples = [Float](repeating: 0, count: 2 * frames)
        for frame in 0..<frames {
            let value = Float(0.2 * sin(2 * Double.pi * 440 * Double(frame) / Double(rate)))
            samples[2 * frame] = value
            samples[2 * frame + 1] = value
        }
        let tone = directory.appendingPathComponent("control-tone.raw")
        try samples.withUnsafeBytes { try Data($0).write(to: tone) }
        let frameBytes = 4 * PrivateSoundServer.channels
        self.pacat = pacat
        self.arguments = [
            "--raw", "--format=float32le", "--rate=\(rate)", "--channels=\(PrivateSoundServer.channels)",
            "--latency=\(latency.periodSize * latency.periods * frameBytes)",
            "--process-time=\(latency.periodSize * frameBytes)", "--stream-name=control", tone.path,
        ]
        self.environment = environment
    }

    /// Plays the whole tone and returns when `pacat` has drained it.
    ///
    /// - Throws: ``BenchError`` when `pacat` fails.
    func play() throws {
        let run = try spawn(pacat, arguments, environment: environment)
        guard run.status == 0 else { throw BenchError("pacat failed (status \(run.status))") }
    }

    /// The path of `name` on `PATH`, or nil.
    private static func program(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }
}
