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
/// - `latency_ms_low` / `latency_ms_default`: the latency a playing source
///   sees on each setting, as measured by ``AudioEngine/measuredOutputLatency``.
///   Goals ≤ 16 and ≤ 30.
///
/// The children are `backbeat bench device-scene` (hidden), so the suite runs
/// from the `backbeat` executable only. Each round lasts
/// `BACKBEAT_BENCH_DEVICE_SECONDS` / rounds of real time (default 60 s in all).
public struct DeviceSuite: BenchSuite {
    public let name = "device"
    public let summary =
        "64 voices and a streamed song on a real sound server (a private PulseAudio null sink): CPU against raw OpenAL, underruns with a core busy, latency"

    public init() {}

    public func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let executable = try selfPath()
        let total =
            options.quick
            ? 6 : Int(ProcessInfo.processInfo.environment["BACKBEAT_BENCH_DEVICE_SECONDS"] ?? "") ?? 60
        let seconds = max(2, total / options.rounds)
        let server = try PrivateSoundServer(sinks: ["Backbeat-Bench"])
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("backbeat-bench-device-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let song = directory.appendingPathComponent("song.ogg")
        try StreamSuite.writeSong(song, seconds: seconds + 5, seed: 3)
        var environment = server.environment
        environment["ALSOFT_DRIVERS"] = "pulse"
        environment["ALSOFT_CONF"] = ""

        func child(_ side: DeviceScene.Side, latency: String = "default") throws -> (
            cpu: Double, result: DeviceScene.Result
        ) {
            let file = directory.appendingPathComponent("result-\(UUID().uuidString)")
            let run = try spawn(
                executable,
                [
                    "bench", "device-scene", "--side", side.rawValue, "--seconds", String(seconds),
                    "--latency", latency, "--song", song.path, "--result", file.path,
                ],
                environment: environment)
            guard run.status == 0, let data = FileManager.default.contents(atPath: file.path),
                let result = DeviceScene.Result(line: String(decoding: data, as: UTF8.self))
            else { throw BenchError("device-scene --side \(side.rawValue) failed (status \(run.status))") }
            let cpu = Self.seconds(run.usage.ru_utime) + Self.seconds(run.usage.ru_stime)
            return (cpu, result)
        }

        log("\(options.rounds) rounds of \(seconds) s on each side, interleaved, with another core busy")
        let busy = BusyThread()
        defer { busy.stop() }
        var underruns = 0
        let cpu = try Rounds.interleaved(
            options.rounds,
            sides: [
                {
                    let run = try child(.backbeat)
                    underruns += run.result.underruns
                    return run.cpu
                },
                { try child(.raw).cpu },
            ]
        ) { round, values in
            log(
                "round \(round): Backbeat \(String(format: "%.2f", values[0])) s CPU, raw OpenAL "
                    + "\(String(format: "%.2f", values[1])) s, ratio \(String(format: "%.3f", values[0] / values[1]))")
        }
        let (backbeatCPU, rawCPU) = (cpu[0], cpu[1])
        let ratios = Rounds.ratios(backbeatCPU, rawCPU)
        busy.stop()
        let low = try child(.latency, latency: "low").result.latencyMilliseconds
        let standard = try child(.latency, latency: "default").result.latencyMilliseconds
        log("latency: low \(String(format: "%.1f", low)) ms, default \(String(format: "%.1f", standard)) ms")
        return [
            Figure(
                key: "cpu_ratio_vs_raw", rounds: ratios,
                unit: "CPU time of Backbeat over raw OpenAL, same scene, same server (goal ≤ 1.10)"),
            Figure(key: "cpu_s_backbeat", rounds: backbeatCPU, unit: "s of CPU per \(seconds) s round"),
            Figure(key: "cpu_s_raw", rounds: rawCPU, unit: "s of CPU per \(seconds) s round"),
            Figure(
                key: "underruns", value: Double(underruns),
                unit: "music underruns over every round, another core busy (goal 0)"),
            Figure(key: "latency_ms_low", value: low, unit: "ms a playing source sees at .low (goal ≤ 16)"),
            Figure(
                key: "latency_ms_default", value: standard, unit: "ms a playing source sees at .default (goal ≤ 30)"),
        ]
    }

    private static func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
}

/// What one `backbeat bench device-scene` child plays, and what it reports.
public enum DeviceScene {
    /// Which side the child plays: Backbeat, raw OpenAL, or only opens an
    /// engine to measure its latency.
    public enum Side: String, Sendable, CaseIterable {
        case backbeat, raw, latency
    }

    /// The child's report, one line: `underruns latency_ms`.
    public struct Result: Sendable {
        public var underruns: Int
        public var latencyMilliseconds: Double
        init(underruns: Int, latencyMilliseconds: Double) {
            self.underruns = underruns
            self.latencyMilliseconds = latencyMilliseconds
        }
        init?(line: String) {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let u = Int(parts[0]), let l = Double(parts[1]) else { return nil }
            self.init(underruns: u, latencyMilliseconds: l)
        }
        var line: String { "\(underruns) \(latencyMilliseconds)" }
    }

    /// Plays the scene for `seconds` on the default device and writes the result to `result`.
    public static func run(side: Side, seconds: Int, latency: AudioEngine.OutputLatency, song: URL, result: URL) throws
    {
        let report: Result
        switch side {
        case .backbeat: report = try playBackbeat(seconds: seconds, latency: latency, song: song)
        case .raw: report = try playRaw(seconds: seconds, latency: latency, song: song)
        case .latency:
            let engine = try AudioEngine(output: .device(latency: latency))
            defer { engine.shutdown() }
            let scene = MixScene(voiceCount: 1)
            let sound = try SoundEffect(buffer: scene.sounds[0], name: "tone", engine: engine)
            sound.play(volume: 0.1, looping: .forever)
            // Let the stream run a while: until it does, OpenAL Soft reports 1 ms.
            var measured = engine.measuredOutputLatency
            for _ in 0..<20 where (measured?.latency.seconds ?? 0) <= 0.002 {
                usleep(100_000)
                measured = engine.measuredOutputLatency
            }
            report = Result(underruns: 0, latencyMilliseconds: measured.map { $0.latency.seconds * 1_000 } ?? .nan)
        }
        try Data(report.line.utf8).write(to: result)
    }

    private static func playBackbeat(seconds: Int, latency: AudioEngine.OutputLatency, song: URL) throws -> Result {
        let engine = try AudioEngine(output: .device(latency: latency))
        defer { engine.shutdown() }
        let scene = MixScene(voiceCount: 64)
        let sounds = try scene.sounds.enumerated().map {
            try SoundEffect(buffer: $0.element, name: "sound\($0.offset)", engine: engine)
        }
        let player = try QueuePlayer(engine: engine, items: [PlayerItem(asset: AudioAsset(url: song))])
        player.volume = 0.3
        player.play()
        for voice in scene.voices {
            sounds[voice.sound].play(volume: voice.gain * 0.1, pan: voice.pan, looping: .forever)
        }
        sleep(UInt32(seconds))
        return Result(underruns: player.underrunCount, latencyMilliseconds: .nan)
    }

    /// Raw OpenAL, as a game without Backbeat would drive it: the same
    /// sounds on 64 looping sources, and the song decoded and streamed
    /// through four queued buffers refilled every 5 ms.
    private static func playRaw(seconds: Int, latency: AudioEngine.OutputLatency, song: URL) throws -> Result {
        _ = ALConfig.prepare(periodSize: latency.periodSize, periods: latency.periods)
        let device = try ALDevice.openPlayback(name: nil)
        defer { device.close() }
        let scene = MixScene(voiceCount: 64)
        let buffers = try scene.sounds.map { try device.generateBuffer($0) }
        var sources: [ALuint] = []
        for voice in scene.voices {
            let source = try device.generateSource()
            try device.withContext {
                alSourcei(source, AL_SOURCE_RELATIVE, 1)
                alSourcef(source, AL_ROLLOFF_FACTOR, 0)
                ALSource(name: source).setPan(voice.pan)
                alSourcef(source, AL_GAIN, voice.gain * 0.1)
                alSourcei(source, AL_LOOPING, 1)
                alSourcei(source, AL_BUFFER, ALint(bitPattern: buffers[voice.sound]))
                alSourcePlay(source)
            }
            sources.append(source)
        }
        let decoder = try AudioDecoders.open(song)
        defer { decoder.close() }
        let stream = try device.generateSource()
        let chunk = decoder.sampleRate / 12
        var samples: [Float] = []
        var streamBuffers: [ALuint] = []
        for _ in 0..<4 {
            _ = try decoder.read(frames: chunk, into: &samples)
            streamBuffers.append(
                try device.generateBuffer(
                    interleaved: samples, channels: decoder.channelCount, sampleRate: decoder.sampleRate))
        }
        var underruns = 0
        try device.withContext {
            alSourcef(stream, AL_GAIN, 0.3)
            alSourceQueueBuffers(stream, ALsizei(streamBuffers.count), &streamBuffers)
            alSourcePlay(stream)
        }
        let end = monotonicNanoseconds() + UInt64(seconds) * 1_000_000_000
        while monotonicNanoseconds() < end {
            usleep(5_000)
            var processed: ALint = 0
            try device.withContext { alGetSourcei(stream, AL_BUFFERS_PROCESSED, &processed) }
            for _ in 0..<Int(processed) {
                var name: ALuint = 0
                try device.withContext { alSourceUnqueueBuffers(stream, 1, &name) }
                if try decoder.read(frames: chunk, into: &samples) == 0 {
                    try decoder.seek(toFrame: 0)
                    _ = try decoder.read(frames: chunk, into: &samples)
                }
                try device.upload(
                    interleaved: samples, channels: decoder.channelCount, sampleRate: decoder.sampleRate, to: name)
                try device.withContext { alSourceQueueBuffers(stream, 1, &name) }
            }
            var state: ALint = 0
            try device.withContext { alGetSourcei(stream, AL_SOURCE_STATE, &state) }
            if state != AL_PLAYING {
                underruns += 1
                try device.withContext { alSourcePlay(stream) }
            }
        }
        try device.withContext { for source in sources + [stream] { alSourceStop(source) } }
        return Result(underruns: underruns, latencyMilliseconds: .nan)
    }
}
