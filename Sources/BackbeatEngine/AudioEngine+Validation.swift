import BackbeatSupport

extension AudioEngine {
    /// Throws unless the engine can open at `sampleRate` with `channels`:
    /// 8 kHz to 384 kHz, and mono, stereo, quad or 5.1.
    ///
    /// - Parameters:
    ///   - sampleRate: The output's frames per second.
    ///   - channels: The output's channel count.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` for a rate of 0 or less,
    ///   ``BackbeatError/Code/unsupportedFormat`` for a rate or channel count it cannot open.
    static func validate(sampleRate: Int, channels: Int) throws {
        guard sampleRate > 0 else {
            throw BackbeatError(
                .invalidArgument, operation: "AudioEngine.init",
                reason: "sample rate must be positive, got \(sampleRate)")
        }
        guard (8_000...384_000).contains(sampleRate) else {
            throw BackbeatError(
                .unsupportedFormat, operation: "AudioEngine.init",
                reason: "sample rate \(sampleRate) Hz (8000...384000)")
        }
        guard [1, 2, 4, 6].contains(channels) else {
            throw BackbeatError(
                .unsupportedFormat, operation: "AudioEngine.init", reason: "\(channels) channels (1, 2, 4 or 6)")
        }
    }
}
