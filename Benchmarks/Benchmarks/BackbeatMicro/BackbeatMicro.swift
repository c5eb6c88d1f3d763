import Backbeat
import BackbeatLibrary
import BackbeatTesting
// Backbeat's hot paths, timed and with their allocations counted (the
// malloc interposer counts every malloc in the measured section).
import Benchmark
import Foundation

/// An offline engine with a cached sound, 64 looping voices and a music
/// stream, rendered for a second so that every part is in steady state.
final class Scene: @unchecked Sendable {
    let engine: AudioEngine
    let hit: SoundEffect
    let tick: MediaTime
    var player: QueuePlayer?
    var voices: [Voice] = []

    init(voices count: Int, music: Bool) throws {
        engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        tick = MediaTime(frames: Int64(engine.updateInterval), sampleRate: engine.sampleRate)
        hit = try SoundEffect(
            buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.25)), name: "hit", engine: engine)
        let loop = try SoundEffect(
            buffer: TestSignal.sine(frequency: 220, duration: MediaTime(seconds: 0.5)), name: "loop", engine: engine)
        for _ in 0..<count { voices.append(loop.play(volume: 0.01, looping: .forever)) }
        if music {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("backbeat-micro-music.wav")
            let writer = try AssetWriter(outputURL: url, fileType: .wav, overwrite: true)
            let input = AssetWriterInput(outputSettings: AudioFormat(sampleRate: 48_000, channelCount: 2))
            try writer.add(input)
            try writer.startWriting()
            try input.append(
                TestSignal.sine(frequency: 330, duration: MediaTime(seconds: 30), sampleRate: 48_000, channels: 2))
            input.markAsFinished()
            let done = DispatchSemaphore(value: 0)
            Task {
                try? await writer.finishWriting()
                done.signal()
            }
            done.wait()
            let player = try QueuePlayer(engine: engine, items: [PlayerItem(asset: AudioAsset(url: url))])
            player.play()
            self.player = player
        }
        _ = hit.play(volume: 0)  // loads the cache entry
        try engine.advance(by: MediaTime(seconds: 1))
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 100,
        maxDuration: .seconds(3),
        maxIterations: 20_000,
        // `make bench-micro` fails on one allocation more than the committed
        // baseline at the median or p99, or a median 25 % slower (these
        // machines are shared: time is compared loosely, allocations exactly).
        thresholds: [
            .mallocCountTotal: .init(absolute: [.p50: 0, .p99: 0]),
            .wallClock: .init(relative: [.p50: 25]),
        ]
    )

    Benchmark("MediaTime arithmetic (1,000 additions and conversions)") { benchmark in
        let step = MediaTime(frames: 240, sampleRate: 48_000)
        var time = MediaTime.zero
        for _ in benchmark.scaledIterations {
            for _ in 0..<1_000 {
                time = time + step
                blackHole(time.frames(atSampleRate: 44_100))
            }
        }
    }

    Benchmark("SoundEffect.play() of a cached sound") { benchmark, scene in
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            let voice = scene.hit.play(volume: 0.1)
            benchmark.stopMeasurement()
            voice.stop()
            try? scene.engine.advance(by: scene.tick)
        }
    } setup: {
        try Scene(voices: 0, music: false)
    }

    Benchmark("One update tick: 64 voices and a music stream") { benchmark, scene in
        for _ in benchmark.scaledIterations {
            try? scene.engine.advance(by: scene.tick)
        }
    } setup: {
        try Scene(voices: 64, music: true)
    }

    // SQLite's and GRDB's caches make a query's count vary by one or two.
    Benchmark(
        "Library query: songs by one artist in 300 items",
        configuration: .init(thresholds: [
            .mallocCountTotal: .init(absolute: [.p50: 4]), .wallClock: .init(relative: [.p50: 25]),
        ])
    ) { benchmark, library in
        for _ in benchmark.scaledIterations {
            var query = MediaQuery.songs(in: library)
            try? query.addFilterPredicate(MediaPropertyPredicate(value: "Artist 7", property: .artist))
            blackHole(try? query.items.count)
        }
    } setup: {
        try libraryOfSongs(300)
    }
}

/// A library of `count` short tagged WAV songs by ten artists, scanned into memory.
func libraryOfSongs(_ count: Int) throws -> MediaLibrary {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("backbeat-micro-library")
    try? FileManager.default.removeItem(at: folder)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    for i in 0..<count {
        let writer = try AssetWriter(outputURL: folder.appendingPathComponent("song\(i).wav"), fileType: .wav)
        writer.metadata = AudioTags(title: "Song \(i)", artist: "Artist \(i % 10)", albumTitle: "Album \(i % 30)")
        let input = AssetWriterInput(outputSettings: AudioFormat(sampleRate: 8_000, channelCount: 1))
        try writer.add(input)
        try writer.startWriting()
        try input.append(
            TestSignal.sine(frequency: 100 + Double(i), duration: MediaTime(seconds: 0.02), sampleRate: 8_000))
        input.markAsFinished()
        let done = DispatchSemaphore(value: 0)
        Task {
            try? await writer.finishWriting()
            done.signal()
        }
        done.wait()
    }
    let library = try MediaLibrary(roots: [folder], index: .inMemory)
    _ = try library.scan()
    return library
}
