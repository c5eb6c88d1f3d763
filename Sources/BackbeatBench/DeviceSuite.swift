import Backbeat
import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL
import BackbeatTesting
import COpenAL
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The `device` suite: the scene a game plays (64 looping voices and a
/// streamed song) on a real sound server in real time, through Backbeat and
/// through raw OpenAL, each in a child process of its own on a private
/// PulseAudio server with a null sink (``PrivateSoundServer``), so the
/// figures are the same on any machine, with or without a sound card.
///
/// - `cpu_ratio_vs_raw`: the CPU time (user + system, from `wait4`) of the
///   Backbeat child over the raw child's, the median of interleaved rounds.
///   Goal ≤ 1.10.
/// - `underruns`: the music stream's underruns in the Backbeat children while
///   a busy thread holds another core. Goal 0.
/// - `underruns_low` / `dropouts_low`: the same scene at `.low`, a round at
///   a time with another core busy, while the sink's monitor is recorded:
///   the music stream's underruns, and the silences of 1 ms or more in the
///   recording (``DeviceScene/dropouts(_:minimumFrames:)``), which are the
///   device's own underruns on the server. Goals 0 and 0. `cpu_s_backbeat_low`
///   is those children's CPU time.
/// - `dropouts_control_low` / `dropouts_raw_low`: the controls, played in
///   the same rounds, interleaved with Backbeat's (mirrored order), so they
///   see the same load: a tone played by `pacat` (PulseAudio's own client,
///   no OpenAL) with the same buffer (`--latency` and `--process-time` of
///   the setting's frames), and raw OpenAL Soft playing the scene at the
///   setting. A gap the control hears too is the machine's (the scheduler
///   or the server), not Backbeat's.
/// - `latency_ms_low` / `latency_ms_default`: the latency a playing source
///   sees on each setting, the mean of 20 readings of
///   ``AudioEngine/measuredOutputLatency``. Goals ≤ 10 and ≤ 30.
/// - `trigger_to_sound_ms_p50` / `_p99` (at `.default`) and
///   `trigger_to_sound_ms_p50_low` / `_p99_low` (at `.low`, goal ≤ 12 for the
///   median): from a `play()` call to the click in the sink's monitor
///   recording, over about 100 calls (16 with `--quick`), placed against a
///   reference click scheduled with `play(at:)`.
///
/// The children are `backbeat bench device-scene` (hidden), so the suite runs
/// from the `backbeat` executable only. Each round lasts
/// `BACKBEAT_BENCH_DEVICE_SECONDS` / rounds of real time (default 60 s in all).
/// `BACKBEAT_BENCH_DEVICE_LOW` (such as `128x3`) measures the `.low` figures
/// at another period size and count, to try one before it becomes the preset;
/// `--only low` measures only the `.low` figures.
package struct DeviceSuite: BenchSuite {
    package let name = "device"
    package let summary =
        "64 voices and a streamed song on a real sound server (a private PulseAudio null sink): CPU against raw OpenAL, underruns with a core busy, latency"

    package init() {}

    /// The `.low` figures' setting: `BACKBEAT_BENCH_DEVICE_LOW` when set, else `.low`.
    static func lowSetting(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> (
        word: String, latency: AudioEngine.OutputLatency
    ) {
        guard let word = environment["BACKBEAT_BENCH_DEVICE_LOW"], !word.isEmpty else { return ("low", .low) }
        guard let latency = DeviceScene.latency(named: word) else {
            throw BenchError("BACKBEAT_BENCH_DEVICE_LOW must be low, default, safe or SIZExCOUNT, such as 128x3")
        }
        return (word, latency)
    }

    package func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let total =
            options.quick
            ? 6 : Int(ProcessInfo.processInfo.environment["BACKBEAT_BENCH_DEVICE_SECONDS"] ?? "") ?? 60
        let seconds = max(2, total / options.rounds)
        let onlyLow = options.only == "low"
        let low = try Self.lowSetting()
        let runner = try DeviceSceneRunner(seconds: seconds)
        defer { runner.stop() }
        let (executable, server, sink, directory, song, environment) = (
            runner.executable, runner.server, runner.sink, runner.directory, runner.song, runner.environment
        )

        /// Trigger to sound at `latency`: clicks played with play(), heard in the sink's monitor; sorted.
        func triggerToSound(latency: String) throws -> [Double] {
            let recording = try server.recordMonitor(of: sink)
            let triggerFile = directory.appendingPathComponent("triggers-\(latency)")
            let triggerRun = try spawn(
                executable,
                [
                    "bench", "device-scene", "--side", "trigger", "--seconds", String(options.quick ? 2 : 12),
                    "--latency", latency, "--song", song.path, "--result", triggerFile.path,
                ],
                environment: environment)
            let recorded = try recording.stop()
            guard triggerRun.status == 0, let data = FileManager.default.contents(atPath: triggerFile.path),
                let triggers = DeviceScene.Triggers(line: String(decoding: data, as: UTF8.self))
            else { throw BenchError("device-scene --side trigger failed (status \(triggerRun.status))") }
            let onsets = DeviceScene.clickOnsets(recorded, sampleRate: PrivateSoundServer.sampleRate)
            guard let delays = DeviceScene.triggerToSound(triggers, onsets: onsets) else {
                throw BenchError(
                    "trigger: \(triggers.calls.count) calls but \(onsets.count) clicks heard (with the reference)")
            }
            let sorted = delays.sorted()
            log(
                "trigger to sound at \(latency) over \(sorted.count) play() calls: p50 "
                    + "\(Self.format(percentile(sorted, 0.5))) ms, p99 \(Self.format(percentile(sorted, 0.99))) ms "
                    + "(min \(Self.format(sorted[0])), max \(Self.format(sorted[sorted.count - 1])))")
            return sorted
        }

        var figures: [Figure] = []
        let busy = BusyThread()
        defer { busy.stop() }
        if !onlyLow {
            log("\(options.rounds) rounds of \(seconds) s on each side, interleaved, with another core busy")
            var underruns = 0
            let cpu = try Rounds.interleaved(
                options.rounds,
                sides: [
                    {
                        let run = try runner.child(.backbeat)
                        underruns += run.result.underruns
                        return run.cpu
                    },
                    { try runner.child(.raw).cpu },
                ]
            ) { round, values in
                log(
                    "round \(round): Backbeat \(String(format: "%.2f", values[0])) s CPU, raw OpenAL "
                        + "\(String(format: "%.2f", values[1])) s, ratio \(String(format: "%.3f", values[0] / values[1]))"
                )
            }
            let (backbeatCPU, rawCPU) = (cpu[0], cpu[1])
            figures += [
                Figure(
                    key: "cpu_ratio_vs_raw", rounds: Rounds.ratios(backbeatCPU, rawCPU),
                    unit: "CPU time of Backbeat over raw OpenAL, same scene, same server (goal ≤ 1.10)"),
                Figure(key: "cpu_s_backbeat", rounds: backbeatCPU, unit: "s of CPU per \(seconds) s round"),
                Figure(key: "cpu_s_raw", rounds: rawCPU, unit: "s of CPU per \(seconds) s round"),
                Figure(
                    key: "underruns", value: Double(underruns),
                    unit: "music underruns over every round, another core busy (goal 0)"),
            ]
        }

        // The scene at .low, another core still busy, its sink recorded: the
        // music's underruns and the device's (silences in the recording),
        // with the controls in the same rounds: pacat, then raw OpenAL.
        log(
            "\(options.rounds) rounds of \(seconds) s at \(low.word) (\(low.latency)), with another core busy, "
                + "each with the controls (pacat, raw OpenAL)")
        // The controls are shorter in a smoke run: they only have to run.
        let controlSeconds = options.quick ? 2 : seconds
        let control = try ControlTone(
            directory: directory, seconds: controlSeconds, latency: low.latency, environment: environment)
        var underrunsLow = 0
        var dropoutsLow = 0
        var dropoutsControl = 0
        var dropoutsRaw = 0
        var cpuLow: [Double] = []
        func recorded(_ play: () throws -> Void) throws -> [Int] {
            let recording = try server.recordMonitor(of: sink)
            try play()
            return DeviceScene.dropouts(try recording.stop())
        }
        func describe(_ gaps: [Int]) -> String {
            let lengths = gaps.prefix(8).map { Self.format(Double($0) * 1_000 / Double(PrivateSoundServer.sampleRate)) }
            return "\(gaps.count) dropouts" + (gaps.isEmpty ? "" : " (\(lengths.joined(separator: ", ")) ms)")
        }
        for round in 1...options.rounds {
            // Mirrored order, so no side always follows the same one.
            let sides = round % 2 == 1 ? ["control", "raw", "backbeat"] : ["backbeat", "raw", "control"]
            for side in sides {
                let load = Self.loadAverage()
                switch side {
                case "control":
                    let gaps = try recorded { try control.play() }
                    dropoutsControl += gaps.count
                    log("round \(round) at \(low.word), control (pacat): \(describe(gaps)), load \(load)")
                case "raw":
                    let gaps = try recorded { _ = try runner.child(.raw, latency: low.word, length: controlSeconds) }
                    dropoutsRaw += gaps.count
                    log("round \(round) at \(low.word), raw OpenAL: \(describe(gaps)), load \(load)")
                default:
                    var run: (cpu: Double, result: DeviceScene.Result)?
                    let gaps = try recorded { run = try runner.child(.backbeat, latency: low.word) }
                    guard let run else { continue }
                    underrunsLow += run.result.underruns
                    dropoutsLow += gaps.count
                    cpuLow.append(run.cpu)
                    log(
                        "round \(round) at \(low.word), Backbeat: \(run.result.underruns) music underruns, "
                            + "\(describe(gaps)), \(String(format: "%.2f", run.cpu)) s CPU, load \(load)")
                }
            }
        }
        busy.stop()

        let lowLatency = try runner.child(.latency, latency: low.word).result.latencyMilliseconds
        log("latency at \(low.word) (\(low.latency)): \(Self.format(lowLatency)) ms")
        figures += [
            Figure(
                key: "underruns_low", value: Double(underrunsLow),
                unit: "music underruns at .low (\(low.latency)) over every round, another core busy (goal 0)"),
            Figure(
                key: "dropouts_low", value: Double(dropoutsLow),
                unit:
                    "silences of 1 ms or more heard in the sink at .low (\(low.latency)): the device underran, another core busy (goal 0)"
            ),
            Figure(
                key: "dropouts_control_low", value: Double(dropoutsControl),
                unit:
                    "the same, for a tone played by pacat (no OpenAL) with the same buffer, in the same rounds: the machine's share"
            ),
            Figure(
                key: "dropouts_raw_low", value: Double(dropoutsRaw),
                unit: "the same, for raw OpenAL Soft playing the scene at the same setting, in the same rounds"),
            Figure(key: "cpu_s_backbeat_low", rounds: cpuLow, unit: "s of CPU per \(seconds) s round at .low"),
            Figure(
                key: "latency_ms_low", value: lowLatency,
                unit: "ms a playing source sees at .low (\(low.latency)), mean of 20 readings (goal ≤ 10)"),
        ]
        if !onlyLow {
            let standard = try runner.child(.latency, latency: "default").result.latencyMilliseconds
            log("latency at default: \(Self.format(standard)) ms")
            figures.append(
                Figure(
                    key: "latency_ms_default", value: standard,
                    unit: "ms a playing source sees at .default, mean of 20 readings (goal ≤ 30)"))
            let delays = try triggerToSound(latency: "default")
            figures += [
                Figure(
                    key: "trigger_to_sound_ms_p50", value: percentile(delays, 0.5),
                    unit: "ms from play() to the sound in the monitor recording, median, at .default"),
                Figure(
                    key: "trigger_to_sound_ms_p99", value: percentile(delays, 0.99),
                    unit: "ms from play() to the sound in the monitor recording, 99th percentile, at .default"),
            ]
        }
        let delaysLow = try triggerToSound(latency: low.word)
        figures += [
            Figure(
                key: "trigger_to_sound_ms_p50_low", value: percentile(delaysLow, 0.5),
                unit: "ms from play() to the sound in the monitor recording, median, at .low (goal ≤ 12)"),
            Figure(
                key: "trigger_to_sound_ms_p99_low", value: percentile(delaysLow, 0.99),
                unit: "ms from play() to the sound in the monitor recording, 99th percentile, at .low"),
        ]
        return figures
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    /// The machine's load average over the last minute, as `/proc/loadavg` gives it ("?" when unreadable).
    static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }
        return text.split(separator: " ").first.map(String.init) ?? "?"
    }
}
