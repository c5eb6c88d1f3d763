/// What the benchmark program reads from an engine. Not part of the public API:
/// import it with `@_spi(Benchmark) import Backbeat`.
extension AudioEngine {
    /// OpenAL sources alive on this engine's device (the voice pool's, and any stream's).
    @_spi(Benchmark)
    public var liveSourceCount: Int { withLock { device.liveSources.count } }

    /// OpenAL buffers alive on this engine's device (resident sounds, lead-ins, stream buffers).
    @_spi(Benchmark)
    public var liveBufferCount: Int { withLock { device.liveBuffers.count } }

    /// The most voices the pool makes audible at once: its sources less the
    /// hand-off reserve. More looping voices than this go virtual.
    @_spi(Benchmark)
    public var audibleVoiceCapacity: Int { voicePool.capacity }

    /// Times an effect voice's source ran dry between two update steps and had
    /// to be restarted (an effect underrun), since the engine opened.
    @_spi(Benchmark)
    public var effectVoiceRestarts: Int { withLock { voicePool.restarts } }

    /// The output latency in frames (the limiter's lookahead).
    @_spi(Benchmark)
    public var outputLatencyFrames: Int { Int(latencyFrames) }

    /// Renders `frames` frames into `samples` (which must hold
    /// `frames * channelCount` floats) without allocating, so a benchmark
    /// measures mixing and update steps only.
    @_spi(Benchmark)
    public func render(frames: Int, reusing samples: inout [Float]) throws {
        try render(frames: frames, into: &samples)
    }
}
