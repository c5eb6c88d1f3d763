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
