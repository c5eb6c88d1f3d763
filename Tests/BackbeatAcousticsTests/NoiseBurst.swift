import Backbeat

/// The short burst the rendered room-reverb tests play: 0.1 s of noise from
/// a fixed linear congruential sequence, faded in and out over 5 ms, so
/// what follows it is the rooms' tail alone.
enum NoiseBurst {
    /// The burst as a sound on `engine`, padded with silence to `frames`
    /// (at least the burst's 4,800) for a voice that loops it once a period.
    ///
    /// - Parameters:
    ///   - engine: The engine the sound plays on.
    ///   - frames: The sound's length in frames at 48 kHz.
    static func sound(on engine: AudioEngine, frames: Int = 4_800) throws -> SoundEffect {
        var state: UInt32 = 12_345
        let samples = (0..<max(frames, 4_800)).map { i -> Float in
            guard i < 4_800 else { return 0 }
            state = state &* 1_664_525 &+ 1_013_904_223
            let fade = Float(min(i, 4_799 - i, 240)) / 240
            return 0.3 * fade * (Float(state >> 8) / Float(1 << 24) * 2 - 1)
        }
        let burst = try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: samples)
        return try SoundEffect(buffer: burst, name: "burst", engine: engine)
    }
}
