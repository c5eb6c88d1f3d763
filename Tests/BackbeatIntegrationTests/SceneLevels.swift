import BackbeatTesting

/// Levels the scenes' sounds reach in a monitor recording, from where the sound starts.
struct SceneLevels {
    let loop: Float, voice: Float, music: Float, other: Float

    /// Levels over 0.2 s, from 0.2 s after the first audible frame of `samples`.
    init?(_ samples: [Float], loopFrequency: Double = 1_000, otherFrequency: Double = 2_000) {
        guard let first = SampleAnalysis.firstAudibleFrame(samples, channels: 2, threshold: 0.02) else { return nil }
        let left = SampleAnalysis.channel(samples, 0, of: 2)
        guard first + 19_200 <= left.count else { return nil }
        let window = Array(left[(first + 9_600)..<(first + 19_200)])
        loop = SampleAnalysis.level(of: window, atFrequency: loopFrequency, sampleRate: 48_000)
        voice = SampleAnalysis.level(of: window, atFrequency: 440, sampleRate: 48_000)
        music = SampleAnalysis.level(of: window, atFrequency: 3_000, sampleRate: 48_000)
        other = SampleAnalysis.level(of: window, atFrequency: otherFrequency, sampleRate: 48_000)
    }

    /// The voice's level at `position` s: its 20-s tone rises from 0.05 to 0.45.
    static func voice(at position: Double) -> Float { Float(0.05 + 0.4 * position / 20) }
    /// The music's level at `position` s: its 20-s tone rises from 0.02 to 0.3.
    static func music(at position: Double) -> Float { Float(0.02 + 0.28 * position / 20) }
}
