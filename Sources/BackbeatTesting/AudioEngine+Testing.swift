// swift-format-ignore-file: AmbiguousTrailingClosureOverload
// The sync and async helpers share a name, so a test that comes to need an
// `await` (a preload, a file written) keeps its shape; Swift picks the
// overload by the closure's effects, the sync one for a closure without `await`.

import BackbeatEngine

/// Opens an `.offline` engine, runs `body` with it, and shuts the engine down
/// however `body` ends: the scope a deterministic audio test runs in.
///
/// ```swift
/// try withOfflineEngine { engine in
///     let voice = try SoundEffect(buffer: TestSignal.sine(frequency: 440, duration: .init(seconds: 1)),
///                                 name: "tone", engine: engine).play()
///     let samples = try engine.render(frames: 4_800)
///     #expect(SampleAnalysis.peak(samples) > 0.4)
/// }
/// ```
///
/// A body that awaits (a preload, a file written) takes the async overload.
///
/// - Parameters:
///   - sampleRate: output frames per second (default 48 kHz).
///   - channels: output channels (default stereo).
///   - maximumVoices: caps the effect voices (nil: what the device grants).
///   - body: the test.
/// - Throws: what opening the engine or `body` throws.
public func withOfflineEngine<T>(
    sampleRate: Int = 48_000, channels: Int = 2, maximumVoices: Int? = nil,
    _ body: (AudioEngine) throws -> T
) throws -> T {
    let engine = try AudioEngine(
        output: .offline(sampleRate: sampleRate, channels: channels), maximumVoices: maximumVoices)
    defer { engine.shutdown() }
    return try body(engine)
}

/// Opens an `.offline` engine, runs the async `body` with it, and shuts the
/// engine down however `body` ends: the scope of a test that awaits, such as
/// one that preloads its sounds before it renders.
///
/// ```swift
/// try await withOfflineEngine { engine in
///     let coin = SoundEffect(contentsOf: coinURL, engine: engine)
///     try await coin.preload()
///     coin.play()
///     let samples = try engine.render(frames: 4_800)
///     #expect(SampleAnalysis.firstAudibleFrame(samples, channels: 2) == 0)
/// }
/// ```
///
/// Engine time still moves only when `body` renders: awaiting costs none.
///
/// - Parameters:
///   - sampleRate: output frames per second (default 48 kHz).
///   - channels: output channels (default stereo).
///   - maximumVoices: caps the effect voices (nil: what the device grants).
///   - body: the test.
/// - Throws: what opening the engine or `body` throws.
public func withOfflineEngine<T>(
    sampleRate: Int = 48_000, channels: Int = 2, maximumVoices: Int? = nil,
    _ body: (AudioEngine) async throws -> T
) async throws -> T {
    let engine = try AudioEngine(
        output: .offline(sampleRate: sampleRate, channels: channels), maximumVoices: maximumVoices)
    defer { engine.shutdown() }
    return try await body(engine)
}
