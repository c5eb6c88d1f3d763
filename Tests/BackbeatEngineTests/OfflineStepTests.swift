import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEffects
@testable import BackbeatEngine

/// An offline render steps only the update periods that have work, and has
/// OpenAL mix a stretch without any in one call. These render the same
/// scripts with that on and with every period stepped and mixed on its own
/// (as renders did before), and require the same samples and events.
@Suite("Offline renders step only the periods with work")
struct OfflineStepTests {
    /// What a script rendered: the samples, the events in order, and the steps and mix calls it took.
    struct Take {
        var samples: [Float] = []
        var events: [String] = []
        var steps = 0
        var mixes = 0
    }

    /// Runs `script` on a fresh offline engine, skipping idle periods or not.
    static func take(skipping: Bool, _ script: (AudioEngine, (Int) throws -> Void) throws -> Void) throws -> Take {
        try withOfflineEngine { engine in
            engine.withLock { engine.skipsIdleSteps = skipping }
            final class Log: @unchecked Sendable {
                let lock = NSLock()
                var events: [String] = []
            }
            let log = Log()
            let token = engine.observe { event in log.lock.withLock { log.events.append("\(event)") } }
            defer { token.cancel() }
            var take = Take()
            try script(engine) { frames in take.samples += try engine.render(frames: frames) }
            let counts = engine.withLock { engine.renderCounts }
            take.steps = counts.steps
            take.mixes = counts.mixes
            // Voice numbers differ from engine to engine: each is renamed by its first appearance.
            var names: [String: String] = [:]
            take.events = log.lock.withLock { log.events }.map { event in
                var out = ""
                var rest = Substring(event)
                while let hash = rest.firstIndex(of: "#") {
                    out += rest[..<hash]
                    let digits = rest[rest.index(after: hash)...].prefix { $0.isNumber }
                    let key = String(digits)
                    if names[key] == nil { names[key] = "v\(names.count)" }
                    out += names[key]!
                    rest = rest[digits.endIndex...]
                }
                return out + rest
            }
            return take
        }
    }

    static func expectSame(
        _ a: Take, _ b: Take, tolerance: Float = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(a.samples.count == b.samples.count, sourceLocation: sourceLocation)
        let worst = zip(a.samples, b.samples).reduce(Float(0)) { max($0, abs($1.0 - $1.1)) }
        #expect(worst <= tolerance, "largest difference \(worst)", sourceLocation: sourceLocation)
        #expect(a.events == b.events, sourceLocation: sourceLocation)
        #expect(SampleAnalysis.peak(a.samples) > 0.01, "the script is audible", sourceLocation: sourceLocation)
    }

    @Test(
        "A world of moving loops crossing in and out of earshot: the same samples and events, in far fewer steps and OpenAL calls"
    )
    func movingWorld() throws {
        // 400 loops of two sounds (one at 44.1 kHz, resampled), each swinging
        // between 1 m and 30 km on its own period, moved every 20 ms game frame.
        let sounds = [
            TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 1)),
            TestSignal.sine(frequency: 330, duration: MediaTime(seconds: 0.5), sampleRate: 44_100),
        ]
        func points(at t: Double) -> [Audio3DPoint] {
            (0..<400).map { i in
                let phase = Double(i) * 0.7
                let period = 1.5 + Double(i % 13) * 0.25
                let exponent = 2.2 + 3.5 * sin(2 * .pi * t / period + phase)
                let distance = pow(10, min(max(exponent, 0), 4.5))
                let bearing = Double(i) * 2.4 + 0.3 * t
                return Audio3DPoint(x: Float(distance * sin(bearing)), y: 0, z: Float(-distance * cos(bearing)))
            }
        }
        func script(_ engine: AudioEngine, _ render: (Int) throws -> Void) throws {
            let effects = try sounds.enumerated().map { try SoundEffect(buffer: $1, name: "s\($0)", engine: engine) }
            let start = points(at: 0)
            let voices = try engine.performBatchUpdates {
                start.indices.map { effects[$0 % 2].play(at: nil, volume: 0.3, position: start[$0], looping: .forever) }
            }
            for frame in 0..<150 {
                try engine.moveVoices(voices, to: points(at: Double(frame) * 0.02))
                try render(960)
            }
        }
        let skipping = try Self.take(skipping: true, script)
        let every = try Self.take(skipping: false, script)
        Self.expectSame(skipping, every)
        #expect(every.steps == 600 && every.mixes == 600)
        // Each game frame steps at its start (the moves) and where a fade out of earshot ends.
        #expect(skipping.steps <= 320, "\(skipping.steps) steps")
        #expect(skipping.mixes <= 320, "\(skipping.mixes) OpenAL calls")
        #expect(skipping.events.contains { $0.contains("voiceRealized") })
        #expect(skipping.events.contains { $0.contains("voiceVirtualized") })
    }

    @Test(
        "Idle stretches between a game's changes (volume, bus fade and pause, voice pause, stop, a one-shot, a move): the same samples and events"
    )
    func changesBetweenIdleStretches() throws {
        func script(_ engine: AudioEngine, _ render: (Int) throws -> Void) throws {
            let tone = try toneEffect(440, on: engine)
            let low = try toneEffect(220, on: engine)
            let loop = tone.play(at: nil, volume: 0.5, looping: .forever)
            let placed = low.play(at: nil, volume: 0.8, position: Audio3DPoint(x: 2, y: 0, z: -1), looping: .forever)
            try render(24_000)
            loop.volume = 0.2  // lands within one period
            try render(12_345)
            engine.effectsBus.fade(to: 0.3, duration: MediaTime(seconds: 0.2))
            try render(24_000)
            engine.effectsBus.isPaused = true
            try render(9_600)
            engine.effectsBus.isPaused = false
            try render(9_600)
            try placed.pause()
            try render(7_777)
            try placed.resume()
            placed.position = Audio3DPoint(x: -3, y: 0, z: 0)
            try render(9_600)
            _ = low.play(at: nil, volume: 0.6, pan: -0.5)  // a one-shot: one second
            try render(60_000)
            loop.stop()
            try render(24_000)
        }
        let skipping = try Self.take(skipping: true, script)
        let every = try Self.take(skipping: false, script)
        Self.expectSame(skipping, every)
        #expect(skipping.steps * 2 < every.steps, "\(skipping.steps) steps against \(every.steps)")
        #expect(skipping.mixes * 2 < every.mixes, "\(skipping.mixes) OpenAL calls against \(every.mixes)")
    }

    @Test(
        "Virtual loops, awake (with a cone) and dormant, whose bus pauses between idle stretches: their time stands with the bus, and they come back in the same place, the same samples"
    )
    func virtualTimeStandsWhileTheBusPauses() throws {
        func script(_ engine: AudioEngine, _ render: (Int) throws -> Void) throws {
            let tone = try toneEffect(440, on: engine)
            let far = Audio3DPoint(x: 0, y: 0, z: -5_000)
            let near = Audio3DPoint(x: 1, y: 0, z: -1)
            // A cone keeps a virtual voice awake; without one it sleeps in the table.
            let awake = tone.play(at: nil, volume: 0.5, position: far, looping: .forever)
            awake.direction = Audio3DPoint(x: 0, y: 0, z: 1)
            awake.cone = AudioCone(innerAngle: 90, outerAngle: 180, outerGain: 0.5, outerHighFrequencyGain: 1)
            let dormant = tone.play(at: nil, volume: 0.5, position: far, looping: .forever)
            try render(24_000)
            engine.effectsBus.isPaused = true
            try render(48_000)
            engine.effectsBus.isPaused = false
            try render(12_000)
            try awake.pause()
            try render(20_000)
            try awake.resume()
            try render(9_600)
            // Into the one-second tone: 0.5 + 0.25 + 0.2 s for the voice paused
            // twice; 0.5 + 0.25 + 0.4167 + 0.2 s, less a round, for the other.
            // Each pause stands within a period.
            for (voice, expected) in [(awake, 0.95), (dormant, 0.3667)] {
                #expect(abs(voice.currentTime.seconds - expected) < 0.006, "\(voice.currentTime.seconds)")
            }
            awake.position = near
            dormant.position = Audio3DPoint(x: -1, y: 0, z: -1)
            try render(24_000)
        }
        let skipping = try Self.take(skipping: true, script)
        let every = try Self.take(skipping: false, script)
        Self.expectSame(skipping, every)
        #expect(skipping.steps * 2 < every.steps, "\(skipping.steps) steps against \(every.steps)")
    }

    @Test("After an idle second, a volume change still ramps over one update period, then one OpenAL call mixes on")
    func changeLandsWithinOnePeriod() throws {
        try withOfflineEngine { engine in
            let dc = try SoundEffect(
                buffer: PCMBuffer(
                    format: AudioFormat(sampleRate: 48_000, channelCount: 1),
                    floats: [Float](repeating: 0.5, count: 4_800)),
                name: "dc", engine: engine)
            let voice = dc.play(at: nil, volume: 1, pan: 0, looping: .forever)
            _ = try engine.render(frames: 48_000)
            let before = engine.withLock { engine.renderCounts }
            voice.volume = 0.25
            let out = try engine.render(frames: 4_800)
            let left = SampleAnalysis.channel(out, 0, of: 2)
            let interval = engine.updateInterval
            // At the new level from the second period on (the output limiter
            // looks a little ahead), and steady to the end: no ramp across
            // the one long call after it.
            let landed = 2 * interval
            #expect(abs(left[landed] / left[0] - 0.25) < 1e-4, "\(left[landed] / left[0])")
            #expect(left[landed...].allSatisfy { abs($0 - left[landed]) < 1e-6 })
            let after = engine.withLock { engine.renderCounts }
            // The change's step, its period on its own, then one call to the end.
            #expect(after.steps - before.steps == 1, "\(after.steps - before.steps) steps")
            #expect(after.mixes - before.mixes == 2, "\(after.mixes - before.mixes) OpenAL calls")
        }
    }
}
