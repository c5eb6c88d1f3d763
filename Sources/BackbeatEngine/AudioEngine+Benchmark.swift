/// What the benchmark program reads from an engine: package access, not public API.
extension AudioEngine {
    /// OpenAL sources alive on this engine's device (the voice pool's, and any stream's).
    package var liveSourceCount: Int { withLock { device.liveSources.count } }

    /// OpenAL buffers alive on this engine's device (resident sounds, lead-ins, stream buffers).
    package var liveBufferCount: Int { withLock { device.liveBuffers.count } }

    /// The output latency in frames (the limiter's lookahead).
    package var outputLatencyFrames: Int { Int(latencyFrames) }

    /// Renders `frames` frames into `samples` (which must hold
    /// `frames * channelCount` floats) without allocating, so a benchmark
    /// measures mixing and update steps only.
    package func render(frames: Int, reusing samples: inout [Float]) throws {
        try render(frames: frames, into: &samples)
    }
}
