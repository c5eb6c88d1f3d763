import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Testing

/// A stereo sound's channels stay on their sides: at the centre its left
/// channel is heard from the left speaker, and panned, its left channel is
/// still heard left of its right channel.
@Suite struct StereoPanTests {
    @Test("At the centre, a stereo sound's left channel is heard on the left and its right on the right")
    func channelsStayAtTheCentre() throws {
        let left = try levels(channel: 0, pan: 0)
        #expect(left.left > 2 * left.right, "left-only sound: \(left)")
        let right = try levels(channel: 1, pan: 0)
        #expect(right.right > 2 * right.left, "right-only sound: \(right)")
    }

    @Test("Panned, a stereo sound's left channel is heard left of its right channel", arguments: [Float(-0.3), 0.3])
    func leftStaysLeftOfRight(pan: Float) throws {
        let left = try levels(channel: 0, pan: pan)
        let right = try levels(channel: 1, pan: pan)
        // Share of the level on the left speaker: larger for the left channel.
        let leftShare = left.left / (left.left + left.right)
        let rightShare = right.left / (right.left + right.right)
        #expect(leftShare > rightShare + 0.1, "left channel \(leftShare), right channel \(rightShare) at pan \(pan)")
    }

    /// The summed absolute level on each output channel of a looping stereo
    /// sound with only `channel` sounding, at `pan`.
    private func levels(channel: Int, pan: Float) throws -> (left: Float, right: Float) {
        try withOfflineEngine { engine in
            let samples: [Float] = (0..<48_000).flatMap { _ -> [Float] in channel == 0 ? [0.5, 0] : [0, 0.5] }
            let buffer = try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 2), floats: samples)
            let sound = try SoundEffect(buffer: buffer, name: "one-side", engine: engine)
            let voice = sound.play(looping: .forever)
            voice.pan = pan
            let out = try engine.render(frames: 9_600)
            let left = SampleAnalysis.channel(out, 0, of: 2).suffix(4_800).map { abs($0) }.reduce(0, +)
            let right = SampleAnalysis.channel(out, 1, of: 2).suffix(4_800).map { abs($0) }.reduce(0, +)
            return (left, right)
        }
    }
}
