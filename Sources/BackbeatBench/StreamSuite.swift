import Backbeat
import BackbeatEffects
import BackbeatEngine
import BackbeatMedia
import BackbeatMusic
import BackbeatSupport
import Foundation

/// Music streaming under load: underruns while a looping Ogg Vorbis queue
/// streams through a paced real-time `.file` output with 64 effect voices
/// playing and a busy thread loading the other core; and the memory one
/// active stream costs for a 1-minute and a 60-minute song.
///
/// The streaming run lasts `BACKBEAT_BENCH_STREAM_SECONDS` seconds (default
/// 600, 20 with `--quick`).
package struct StreamSuite: BenchSuite {
    package let name = "stream"
    package let summary =
        "underruns streaming music through a real-time .file output with 64 voices and a busy core; MiB per active stream, 1-min vs 60-min songs"

    /// The suite.
    package init() {}

    package func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let quick = options.quick
        let seconds =
            ProcessInfo.processInfo.environment["BACKBEAT_BENCH_STREAM_SECONDS"].flatMap(Int.init) ?? (quick ? 20 : 600)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "backbeat-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        // 1. Underruns.
        let songSeconds = quick ? 10 : 60
        log("encoding two \(songSeconds) s stereo 44.1 kHz Ogg Vorbis songs")
        let songs = [directory.appendingPathComponent("a.ogg"), directory.appendingPathComponent("b.ogg")]
        for (i, url) in songs.enumerated() { try Self.writeSong(url, seconds: songSeconds, seed: UInt32(i + 1)) }
        log("streaming for \(seconds) s in real time with 64 effect voices and a busy thread")
        let (underruns, voices) = try streamUnderLoad(
            songs: songs, seconds: seconds, output: directory.appendingPathComponent("out.wav"), log: log)

        // 2. Memory per active stream.
        log("writing 1-minute and 60-minute songs (8 kHz mono 16-bit WAV)")
        let short = directory.appendingPathComponent("1min.wav")
        let long = directory.appendingPathComponent("60min.wav")
        try Self.writeLongWAV(short, minutes: 1)
        try Self.writeLongWAV(long, minutes: 60)
        var shortMiB: [Double] = []
        var longMiB: [Double] = []
        var bufferBytes = 0
        _ = try memoryPerStream(song: short)  // warm-up: the allocator's first arenas are not a stream's cost
        for round in 1...options.rounds {
            let (s, sb) = try memoryPerStream(song: short)
            let (l, lb) = try memoryPerStream(song: long)
            shortMiB.append(s)
            longMiB.append(l)
            bufferBytes = max(bufferBytes, sb, lb)
            log(
                String(
                    format: "round %d: %.3f MiB per stream (1 min), %.3f MiB (60 min); PCM buffered %d / %d bytes",
                    round, s, l, sb, lb))
        }
        return [
            Figure(key: "seconds", value: Double(seconds), unit: "s of real-time .file output streamed"),
            Figure(
                key: "voices", value: Double(voices),
                unit: "effect voices playing meanwhile (one busy thread on the other core)"),
            Figure(key: "underruns", value: Double(underruns), unit: "underruns (goal 0)"),
            Figure(
                key: "mib_per_stream_1min", rounds: shortMiB,
                unit:
                    "MiB RSS per active stream, 1-minute song (8 streams, median of \(options.rounds) rounds after a warm-up)"
            ),
            Figure(
                key: "mib_per_stream_60min", rounds: longMiB,
                unit: "MiB RSS per active stream, 60-minute song (goal: equal to 1 min within noise)"),
            Figure(
                key: "stream_pcm_bytes", value: Double(bufferBytes),
                unit: "bytes of PCM a stream holds at most (OpenAL buffers + decoded chunks)"),
        ]
    }

    /// Streams `songs` (looping) on a paced real-time file output for `seconds`; returns underruns and voices.
    private func streamUnderLoad(songs: [URL], seconds: Int, output: URL, log: (String) -> Void) throws -> (Int, Int) {
        let engine = try AudioEngine(
            output: .file(url: output, sampleRate: 48_000, pacing: .realTime), maximumVoices: 64)
        defer {
            engine.shutdown()
            try? FileManager.default.removeItem(at: output)
        }
        var noise = [Float](repeating: 0, count: 24_000)
        var seed: UInt32 = 7
        for i in noise.indices {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            noise[i] = (Float(seed >> 8) / Float(1 << 24) - 0.5) * 0.2
        }
        let effect = try SoundEffect(
            buffer: PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: noise), name: "noise",
            engine: engine)
        let voices = (0..<64).map { i in effect.play(volume: 0.02, pan: Float(i % 9 - 4) / 4, looping: .forever) }

        let busy = BusyThread()
        defer { busy.stop() }

        let player = try QueuePlayer(engine: engine, items: songs.map(PlayerItem.init(url:)))
        player.loopsQueue = true
        player.play()
        let step = max(1, seconds / 10)
        var elapsed = 0
        while elapsed < seconds {
            let nap = min(step, seconds - elapsed)
            Thread.sleep(forTimeInterval: Double(nap))
            elapsed += nap
            log(
                "\(elapsed) s: \(player.underrunCount) underruns, \(voices.filter(\.isPlaying).count) voices audible, engine time \(String(format: "%.1f", engine.currentTime.seconds)) s"
            )
        }
        return (player.underrunCount, voices.filter(\.isPlaying).count)
    }

    /// Resident MiB per stream: eight players on `song`, offline, rendering 10 s.
    private func memoryPerStream(song: URL) throws -> (Double, Int) {
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        _ = try engine.render(frames: 4_800)
        let before = residentMiB()
        let players = try (0..<8).map { _ in try QueuePlayer(engine: engine, items: [PlayerItem(url: song)]) }
        for player in players { player.play() }
        var most = 0
        for _ in 0..<20 {
            try engine.advance(by: MediaTime(seconds: 0.5))
            most = max(most, players.map(\.streamBufferBytes).max() ?? 0)
        }
        let perStream = (residentMiB() - before) / Double(players.count)
        return (perStream, most)
    }

    /// A music-like stereo Ogg Vorbis song (chords and a little noise).
    static func writeSong(_ url: URL, seconds: Int, seed: UInt32) throws {
        try wait { try await writeSongAsync(url, seconds: seconds, seed: seed) }
    }

    private static func writeSongAsync(_ url: URL, seconds: Int, seed: UInt32) async throws {
        let rate = 44_100
        let format = AudioFormat(sampleRate: rate, channelCount: 2)
        let writer = try AssetWriter(outputURL: url, fileType: .oggVorbis, overwrite: true)
        let input = AssetWriterInput(outputSettings: format, quality: 0.4)
        try writer.add(input)
        try writer.startWriting()
        var state = seed
        let chunk = 4_410
        var samples = [Float](repeating: 0, count: chunk * 2)
        for block in 0..<(seconds * rate / chunk) {
            let root = 110.0 * pow(2, Double((block / 10 * 5 + Int(seed)) % 12) / 12)
            for i in 0..<chunk {
                let t = Double(block * chunk + i) / Double(rate)
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = (Double(state >> 8) / Double(1 << 24) - 0.5) * 0.04
                let chord = 0.25 * sin(2 * .pi * root * t) + 0.15 * sin(2 * .pi * root * 1.5 * t)
                samples[2 * i] = Float(chord + noise)
                samples[2 * i + 1] = Float(chord * 0.8 - noise)
            }
            try input.append(try PCMBuffer(format: format, floats: samples))
        }
        input.markAsFinished()
        try await writer.finishWriting()
    }

    /// `minutes` of an 8 kHz mono 16-bit sine, written a second at a time.
    static func writeLongWAV(_ url: URL, minutes: Int) throws {
        try wait { try await writeLongWAVAsync(url, minutes: minutes) }
    }

    private static func writeLongWAVAsync(_ url: URL, minutes: Int) async throws {
        let format = AudioFormat(sampleRate: 8_000, channelCount: 1, commonFormat: .int16)
        let writer = try AssetWriter(outputURL: url, fileType: .wav, overwrite: true)
        let input = AssetWriterInput(outputSettings: format)
        try writer.add(input)
        try writer.startWriting()
        let second = try PCMBuffer(
            format: format, int16s: (0..<8_000).map { Int16(8_000 * sin(Double($0) * 2 * .pi * 220 / 8_000)) })
        for _ in 0..<(minutes * 60) { try input.append(second) }
        input.markAsFinished()
        try await writer.finishWriting()
    }

    /// Waits for async work from the synchronous suite.
    private static func wait(_ body: @escaping @Sendable () async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = LockedValueBox<(any Error)?>(nil)
        Task.detached {
            do { try await body() } catch { failure.withLockedValue { $0 = error } }
            done.signal()
        }
        done.wait()
        if let error = failure.withLockedValue({ $0 }) { throw error }
    }
}
