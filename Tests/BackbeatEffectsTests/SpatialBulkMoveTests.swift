import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEffects

@Suite("Spatial: moving many voices at once")
struct SpatialBulkMoveTests {
    /// Renders four placed tone loops moved along the same paths, either one
    /// `position` at a time or with `moveVoices`; one of them goes out of
    /// earshot and comes back. Returns the render and the far voice's states.
    static func render(bulk: Bool) throws -> (out: [Float], farState: Voice.State, backState: Voice.State) {
        try withOfflineEngine { engine in
            let tones = try [220.0, 330, 440, 550].map { f in
                try SoundEffect(
                    buffer: TestSignal.sine(frequency: f, duration: MediaTime(seconds: 1)), name: "tone\(f)",
                    engine: engine)
            }
            let voices = tones.map { $0.play(at: nil, position: Audio3DPoint(x: 0, y: 0, z: -1), looping: .forever) }
            func move(_ points: [Audio3DPoint]) throws {
                if bulk {
                    try engine.moveVoices(voices, to: points)
                } else {
                    for (voice, p) in zip(voices, points) { voice.position = p }
                }
            }
            var out: [Float] = []
            var farState = Voice.State.playing
            var backState = Voice.State.playing
            for frame in 0..<40 {
                let t = Float(frame) / 50
                var points = (0..<4).map { i -> Audio3DPoint in
                    let angle = t * 2 + Float(i) * 1.5
                    return Audio3DPoint(x: 3 * sin(angle), y: 0, z: -3 * cos(angle))
                }
                if (10..<25).contains(frame) { points[2] = Audio3DPoint(x: 0, y: 0, z: -5_000) }
                try move(points)
                out += try engine.render(frames: 960)
                if frame == 20 { farState = voices[2].state }
                if frame == 30 { backState = voices[2].state }
            }
            return (out, farState, backState)
        }
    }

    @Test("moveVoices renders what setting each voice's position renders, virtual voices included")
    func sameAsOneByOne() throws {
        let single = try Self.render(bulk: false)
        let bulk = try Self.render(bulk: true)
        #expect(bulk.farState == .virtual && single.farState == .virtual)
        #expect(bulk.backState == .playing && single.backState == .playing)
        #expect(SampleAnalysis.rms(bulk.out) > 0.05)
        let difference = zip(single.out, bulk.out).map { $0 - $1 }
        #expect(SampleAnalysis.peak(difference) < 1e-5, "the two ways of moving render the same samples")
    }

    @Test("moveVoices places each voice: +X is heard on the right, -X on the left")
    func places() throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(440, on: engine)
            let a = sound.play(looping: .forever)
            let b = sound.play(looping: .forever)
            try engine.moveVoices([a, b], to: [Audio3DPoint(x: 1, y: 0, z: 0), Audio3DPoint(x: 1, y: 0, z: 0)])
            _ = try engine.render(frames: 4_800)
            let right = try engine.render(frames: 9_600)
            try engine.moveVoices([a, b], to: [Audio3DPoint(x: -1, y: 0, z: 0), Audio3DPoint(x: -1, y: 0, z: 0)])
            _ = try engine.render(frames: 4_800)
            let left = try engine.render(frames: 9_600)
            let rl = SampleAnalysis.rms(SampleAnalysis.channel(right, 0, of: 2))
            let rr = SampleAnalysis.rms(SampleAnalysis.channel(right, 1, of: 2))
            let ll = SampleAnalysis.rms(SampleAnalysis.channel(left, 0, of: 2))
            let lr = SampleAnalysis.rms(SampleAnalysis.channel(left, 1, of: 2))
            #expect(rr > 0.1 && rl < rr * 0.1)
            #expect(ll > 0.1 && lr < ll * 0.1)
            #expect(a.position == Audio3DPoint(x: -1, y: 0, z: 0) && b.position == a.position)
        }
    }

    @Test("moveVoices refuses mismatched arrays and another engine's voices, moving nothing; skips NaN points")
    func badInput() throws {
        try withOfflineEngine { engine in
            let sound = try toneEffect(440, on: engine)
            let start = Audio3DPoint(x: 0, y: 0, z: -2)
            let a = sound.play(at: nil, position: start, looping: .forever)
            let b = sound.play(at: nil, position: start, looping: .forever)
            #expect { try engine.moveVoices([a, b], to: [.zero]) } throws: {
                BackbeatError.Code.invalidArgument.matches($0)
            }
            #expect(a.position == start)
            try withOfflineEngine { other in
                let stranger = try SoundEffect(
                    buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 1)), name: "tone",
                    engine: other)
                let c = stranger.play(looping: .forever)
                #expect { try engine.moveVoices([a, c], to: [.zero, .zero]) } throws: {
                    BackbeatError.Code.invalidArgument.matches($0)
                }
            }
            #expect(a.position == start, "nothing moves when the call is refused")
            let moved = Audio3DPoint(x: 1, y: 0, z: 0)
            try engine.moveVoices([a, b], to: [Audio3DPoint(x: .nan, y: 0, z: 0), moved])
            #expect(a.position == start, "a NaN point leaves its voice where it was")
            #expect(b.position == moved)
            try engine.moveVoices([], to: [])
            a.stop()
            _ = try engine.render(frames: 4_800)
            try engine.moveVoices([a], to: [moved])  // a finished voice is ignored
            #expect(a.position == start)
        }
    }
}
