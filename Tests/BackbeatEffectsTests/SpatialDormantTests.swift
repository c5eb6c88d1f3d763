import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEffects

/// Virtual voices out of earshot sleep in the pool's table (no update step
/// visits them); these check that they keep their time, their rate, their
/// place and their moves while asleep.
@Suite("Spatial: dormant voices")
struct SpatialDormantTests {
    static let near = VirtualVoiceTests.near
    static let far = VirtualVoiceTests.far

    /// Renders a chirp loop at rate 1.25, near for 9,600 frames, then far
    /// (or near all along) for 96,017 frames, during which its rate goes to
    /// `rate` after 30,011 of them; then near for 9,600. Returns the 24,000
    /// frames after that and whether it slept while far.
    static func render(sampleRate: Int, away: Bool, rate: Float) throws -> (out: [Float], slept: Bool) {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: VirtualVoiceTests.chirp(sampleRate: sampleRate), name: "chirp", engine: engine)
            let voice = sound.play(at: nil, position: near, rate: 1.25, looping: .forever)
            _ = try engine.render(frames: 9_600)
            if away { voice.position = far }
            _ = try engine.render(frames: 30_011)
            let slept = engine.withLock { voice.record.isDormant }
            voice.rate = rate
            _ = try engine.render(frames: 66_006)
            if away { voice.position = near }
            _ = try engine.render(frames: 9_600)
            return (try engine.render(frames: 24_000), slept)
        }
    }

    @Test(
        "A dormant loop keeps its time at its rate, and at a rate set while it sleeps: it comes back in phase",
        arguments: [48_000, 44_100], [Float(1.25), 0.75])
    func rateWhileDormant(sampleRate: Int, rate: Float) throws {
        let reference = try Self.render(sampleRate: sampleRate, away: false, rate: rate)
        let returned = try Self.render(sampleRate: sampleRate, away: true, rate: rate)
        #expect(!reference.slept)
        #expect(returned.slept)
        let a = SampleAnalysis.channel(reference.out, 0, of: 2)
        let b = SampleAnalysis.channel(returned.out, 0, of: 2)
        #expect(SampleAnalysis.rms(a) > 0.1)
        let difference = zip(a, b).map { $0 - $1 }
        let ratio = 20 * log10(Double(SampleAnalysis.rms(difference)) / Double(SampleAnalysis.rms(a)))
        #expect(ratio < -60, "difference \(ratio) dB")
    }

    @Test(
        "moveVoices of a remembered batch stores four rows at a time and the rest one by one: NaN and infinite points leave a voice where it was, a voice brought near wakes and plays"
    )
    func batchRowsAndBadPoints() throws {
        try withOfflineEngine { engine in
            let tone = try toneEffect(440, on: engine)
            // 303 voices (a batch this large gets the row index): blocks of
            // four rows and three rows after them; voice 9 starts near.
            var points = (0..<303).map { Audio3DPoint(x: 0, y: 0, z: -5_000 - Float($0) * 10) }
            points[9] = Audio3DPoint(x: 0, y: 0, z: -2)
            let voices = points.map { tone.play(at: nil, position: $0, looping: .forever) }
            try engine.moveVoices(voices, to: points)
            _ = try engine.render(frames: 960)
            #expect(
                engine.withLock { voices.enumerated().allSatisfy { $0.element.record.isDormant == ($0.offset != 9) } })
            try engine.moveVoices(voices, to: points)  // the pool now knows this array
            var next = points.map { Audio3DPoint(x: $0.x, y: $0.y, z: $0.z - 50) }
            next[1] = Audio3DPoint(x: .nan, y: 0, z: -1)  // in a block of four
            next[5] = Audio3DPoint(x: 0, y: .infinity, z: -1)
            next[302] = Audio3DPoint(x: 0, y: 0, z: -.infinity)  // after the blocks
            next[6] = Audio3DPoint(x: 2, y: 0, z: 0)  // brought near, on the right
            next[9] = Audio3DPoint(x: 0, y: 0, z: -9_000)  // awake, sent far
            try engine.moveVoices(voices, to: next)
            for i in [1, 5, 302] { #expect(voices[i].position == points[i], "voice \(i)") }
            for i in voices.indices where ![1, 5, 302].contains(i) {
                #expect(voices[i].position == next[i], "voice \(i)")
            }
            _ = try engine.render(frames: 2_400)
            #expect(voices[6].state == .playing)
            for i in voices.indices where i != 6 { #expect(voices[i].state == .virtual, "voice \(i)") }
            let out = try engine.render(frames: 4_800)
            let left = SampleAnalysis.rms(SampleAnalysis.channel(out, 0, of: 2))
            let right = SampleAnalysis.rms(SampleAnalysis.channel(out, 1, of: 2))
            #expect(right > 0.05 && right > 2 * left, "left \(left), right \(right)")
            _ = try engine.render(frames: 9_600)
            #expect(engine.withLock { voices[9].record.isDormant }, "the voice sent far sleeps")
        }
    }

    /// Moves a tone loop from near to `from` and then five times between
    /// 900 m (-59 dB, heard) and 1,200 m (-61.6 dB) with the given margin;
    /// returns the sleeps and wakes after it first went far, its sources
    /// taken and given up (events), and the RMS of each stay at 900 m and at 1,200 m.
    static func hover(margin: Float?) throws -> (
        sleeps: Int, wakes: Int, realized: Int, virtualized: Int, heard: [Float], silent: [Float],
        dormantAt1200: Bool
    ) {
        try withOfflineEngine { engine in
            if let margin { engine.audibilityMargin = margin }
            let tone = try toneEffect(440, on: engine)
            final class Tally: @unchecked Sendable { var realized = 0, virtualized = 0 }
            let tally = Tally()
            let token = engine.observe { event in
                if case .voiceRealized = event { tally.realized += 1 }
                if case .voiceVirtualized = event { tally.virtualized += 1 }
            }
            defer { token.cancel() }
            let voice = tone.play(at: nil, position: Self.near, looping: .forever)
            _ = try engine.render(frames: 4_800)
            voice.position = Audio3DPoint(x: 0, y: 0, z: -1_200)
            _ = try engine.render(frames: 4_800)
            let dormant = engine.withLock { voice.record.isDormant }
            let before = engine.dormantTransitions
            let (realized, virtualized) = (tally.realized, tally.virtualized)
            var heard: [Float] = []
            var silent: [Float] = []
            for _ in 0..<5 {
                voice.position = Audio3DPoint(x: 0, y: 0, z: -900)
                _ = try engine.render(frames: 2_400)
                heard.append(SampleAnalysis.rms(try engine.render(frames: 2_400)))
                voice.position = Audio3DPoint(x: 0, y: 0, z: -1_200)
                _ = try engine.render(frames: 2_400)
                silent.append(SampleAnalysis.rms(try engine.render(frames: 2_400)))
            }
            let after = engine.dormantTransitions
            return (
                after.sleeps - before.sleeps, after.wakes - before.wakes, tally.realized - realized,
                tally.virtualized - virtualized, heard, silent, dormant
            )
        }
    }

    @Test(
        "A loop hovering just below the threshold stays awake within the margin (3 dB by default): it gives up and takes back its source at the threshold as before, and sleeps only with no margin"
    )
    func marginKeepsHoveringVoiceAwake() throws {
        let kept = try Self.hover(margin: nil)
        let none = try Self.hover(margin: 0)
        #expect(!kept.dormantAt1200, "-61.6 dB is within 3 dB of the threshold")
        #expect(none.dormantAt1200)
        #expect(kept.sleeps == 0 && kept.wakes == 0, "\(kept.sleeps) sleeps, \(kept.wakes) wakes")
        #expect(none.sleeps == 5 && none.wakes == 5, "\(none.sleeps) sleeps, \(none.wakes) wakes")
        for run in [kept, none] {
            #expect(
                run.realized == 5 && run.virtualized == 5, "\(run.realized) realized, \(run.virtualized) virtualized")
            #expect(run.heard.allSatisfy { $0 > 1e-4 }, "\(run.heard)")
            #expect(run.silent.allSatisfy { $0 == 0 }, "\(run.silent)")
        }
        // Both render the same samples: the margin changes only what the update step visits.
        #expect(zip(kept.heard, none.heard).allSatisfy { abs($0 - $1) <= 1e-6 * max($0, $1) + 1e-9 })
    }

    @Test(
        "A loud loop moved out of earshot in one step fades to silence over the next update period, with no click, and gives its source back (and sleeps) at the step after it, not a ramp later"
    )
    func inaudibleVoiceGivesBackAfterOnePeriod() throws {
        try withOfflineEngine { engine in
            let tone = try toneEffect(440, on: engine)
            final class Tally: @unchecked Sendable { var virtualized = 0 }
            let tally = Tally()
            let token = engine.observe { event in
                if case .voiceVirtualized = event { tally.virtualized += 1 }
            }
            defer { token.cancel() }
            let voice = tone.play(at: nil, position: Self.near, looping: .forever)
            // A whole number of update periods, so the next render starts on a step.
            let period = engine.updateInterval
            _ = try engine.render(frames: period * 20)
            #expect(voice.state == .playing)
            let before = try engine.render(frames: period)
            #expect(SampleAnalysis.rms(before) > 0.01)
            voice.position = Audio3DPoint(x: 0, y: 0, z: -2_000)  // -66 dB: below the threshold and the margin
            let after = try engine.render(frames: period * 2)
            #expect(tally.virtualized == 1)
            #expect(voice.state == .virtual)
            #expect(engine.withLock { voice.record.isDormant })
            // No click: the left channel moves no faster than the tone itself did.
            let left = SampleAnalysis.channel(before + after, 0, of: 2)
            let steps = zip(left.dropFirst(), left).map { abs($0 - $1) }
            let toneStep = steps[0..<period].max() ?? 0
            #expect(steps.max() ?? 0 <= toneStep * 1.01, "largest step \(steps.max() ?? 0), the tone's \(toneStep)")
            // Past the output's lookahead (the limiter's), the second period is silent.
            let tail = after[((period + engine.outputLatencyFrames) * 2)...]
            #expect(!tail.isEmpty && tail.allSatisfy { $0 == 0 }, "peak \(tail.map { abs($0) }.max() ?? 0)")
        }
    }

    /// Plays voice B of a looping tone: started far (virtual), brought to
    /// 4 m at frame 9,600 with its own distance curve (rolloff 0.5); with
    /// `first`, voice A of the same sound plays at 1 m from the start and goes
    /// out of earshot at frame 4,800, giving its source back before B comes.
    /// Returns the 9,600 frames after B came, and the sources taken back warm.
    static func comeback(first: Bool) throws -> (out: [Float], warm: Int) {
        try withOfflineEngine { engine in
            let tone = try toneEffect(440, on: engine)
            let a = first ? tone.play(at: nil, position: Self.near, looping: .forever) : nil
            let b = tone.play(at: nil, position: Self.far, looping: .forever)
            b.distanceAttenuationParameters = AudioDistanceAttenuationParameters(rolloffFactor: 0.5)
            b.rate = 1.5
            _ = try engine.render(frames: 4_800)
            a?.position = Self.far
            _ = try engine.render(frames: 4_800)
            b.position = Audio3DPoint(x: 3, y: 0, z: -4)
            let out = try engine.render(frames: 9_600)
            return (out, engine.warmSourceStarts)
        }
    }

    @Test(
        "A loop coming into earshot takes back a source that still holds its sound from a loop that left: an offset and a play, and it sounds as a fresh source would, with its own place, curve and rate"
    )
    func warmSourceReuse() throws {
        let warm = try Self.comeback(first: true)
        let cold = try Self.comeback(first: false)
        #expect(warm.warm == 1)
        #expect(cold.warm == 0)
        #expect(SampleAnalysis.rms(cold.out) > 0.01)
        let difference = zip(warm.out, cold.out).map { $0 - $1 }
        let ratio = 20 * log10(Double(SampleAnalysis.rms(difference)) / Double(SampleAnalysis.rms(cold.out)))
        #expect(ratio < -60, "difference \(ratio) dB")
    }

    @Test("A sound's buffer that a free source still holds (to be taken back warm) is let go when the sound goes")
    func warmSourceLetsGoOfFreedSound() throws {
        try withOfflineEngine { engine in
            let baseline = engine.liveBufferCount
            func playAndLeave() throws {
                let tone = try toneEffect(440, on: engine)
                let voice = tone.play(at: nil, position: Self.near, looping: .forever)
                _ = try engine.render(frames: 4_800)
                voice.position = Self.far
                _ = try engine.render(frames: 4_800)
                voice.stop()
                _ = try engine.render(frames: 4_800)
                #expect(engine.liveBufferCount > baseline)
                #expect(engine.withLock { engine.voicePoolLocked.warmFreeSources } == 1)
            }
            try playAndLeave()
            _ = try engine.render(frames: 240)  // the sound's release frees its buffer at the engine's next entry
            #expect(engine.withLock { engine.voicePoolLocked.warmFreeSources } == 0)
            #expect(engine.liveBufferCount == baseline)
        }
    }

    @Test("The margin: NaN, negative and infinite values are ignored; a larger one keeps a voice awake further out")
    func marginSetting() throws {
        try withOfflineEngine { engine in
            #expect(engine.audibilityMargin == 3)
            engine.audibilityMargin = .nan
            engine.audibilityMargin = -1
            engine.audibilityMargin = .infinity
            #expect(engine.audibilityMargin == 3)
            engine.audibilityMargin = 20
            let tone = try toneEffect(440, on: engine)
            let voice = tone.play(at: nil, position: Self.near, looping: .forever)
            _ = try engine.render(frames: 2_400)
            voice.position = Audio3DPoint(x: 0, y: 0, z: -5_000)  // -74 dB: 14 dB below, within 20
            _ = try engine.render(frames: 4_800)
            #expect(voice.state == .virtual)
            #expect(!engine.withLock { voice.record.isDormant })
            engine.audibilityMargin = 10
            _ = try engine.render(frames: 2_400)
            #expect(engine.withLock { voice.record.isDormant })
        }
    }

    @Test("moveVoices moves the voices the array holds now, after the game reorders the array it keeps")
    func reorderedBatch() throws {
        try withOfflineEngine { engine in
            let tone = try toneEffect(440, on: engine)
            let a = tone.play(at: nil, position: Self.far, looping: .forever)
            let b = tone.play(at: nil, position: Self.far, looping: .forever)
            var batch = [a, b]
            let farA = Audio3DPoint(x: 0, y: 0, z: -6_000)
            let farB = Audio3DPoint(x: 0, y: 0, z: -7_000)
            try engine.moveVoices(batch, to: [farA, farB])
            _ = try engine.render(frames: 960)
            #expect(engine.withLock { a.record.isDormant && b.record.isDormant })
            try engine.moveVoices(batch, to: [farA, farB])  // the pool now knows this array
            _ = try engine.render(frames: 960)
            #expect(a.position == farA && b.position == farB)
            batch.swapAt(0, 1)
            let right = Audio3DPoint(x: 2, y: 0, z: 0)
            try engine.moveVoices(batch, to: [right, farA])
            #expect(b.position == right)
            #expect(a.position == farA)
            _ = try engine.render(frames: 2_400)
            #expect(b.state == .playing)
            #expect(a.state == .virtual)
            let out = try engine.render(frames: 4_800)
            let left = SampleAnalysis.rms(SampleAnalysis.channel(out, 0, of: 2))
            let rightLevel = SampleAnalysis.rms(SampleAnalysis.channel(out, 1, of: 2))
            #expect(rightLevel > 0.05 && rightLevel > 2 * left, "left \(left), right \(rightLevel)")
        }
    }

    @Test("A dormant voice's time stops while its bus is paused, and it wakes when its volume changes")
    func busPauseAndWake() throws {
        try withOfflineEngine { engine in
            let bus = engine.makeBus(named: "world")
            let loop = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 48_000), name: "loop", engine: engine)
            let voice = loop.play(at: nil, position: Self.far, looping: .forever, bus: bus)
            _ = try engine.render(frames: 24_000)
            #expect(engine.withLock { voice.record.isDormant })
            let before = voice.currentTime
            #expect(abs(before.seconds - 0.5) < 0.006, "\(before.seconds)")
            bus.isPaused = true
            _ = try engine.render(frames: 48_000)
            #expect(abs((voice.currentTime - before).seconds) < 0.006, "time went on while paused")
            bus.isPaused = false
            _ = try engine.render(frames: 12_000)
            #expect(abs((voice.currentTime - before).seconds - 0.25) < 0.006, "\(voice.currentTime.seconds)")
            #expect(engine.withLock { voice.record.isDormant })
            // A volume change wakes it (its reach changes); the next pass puts it back to sleep, time intact.
            voice.volume = 0.5
            #expect(engine.withLock { !voice.record.isDormant })
            _ = try engine.render(frames: 2_400)
            #expect(engine.withLock { voice.record.isDormant })
            #expect(abs((voice.currentTime - before).seconds - 0.3) < 0.006, "\(voice.currentTime.seconds)")
            #expect(voice.state == .virtual)
        }
    }

    @Test("Loops started out of earshot sleep at once, scheduled or not, are counted once, and wake in place")
    func startDormant() throws {
        try withOfflineEngine { engine in
            let loop = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 4_800), name: "loop", engine: engine)
            let now = (0..<3).map { _ in loop.play(at: nil, position: Self.far, looping: .forever) }
            let later = (0..<3).map { _ in
                loop.play(at: MediaTime(frames: 4_800, sampleRate: 48_000), position: Self.far, looping: .forever)
            }
            #expect(engine.withLock { now.allSatisfy(\.record.isDormant) })
            _ = try engine.render(frames: 9_600)
            #expect(engine.withLock { (now + later).allSatisfy(\.record.isDormant) })
            let pool = engine.withLock { (engine.voicePoolLocked.liveVoiceCount, engine.voicePoolLocked.stateCounts) }
            #expect(pool.0 == 6)
            #expect(pool.1 == [.virtual: 6])
            // Started at 4,800, a scheduled one is 4,800 frames (one loop) in: back near, it plays on.
            later[0].position = Self.near
            _ = try engine.render(frames: 2_400)
            #expect(later[0].state == .playing)
            #expect(later[0].loopCount == 1)
            #expect(now[0].loopCount == 2)
            let out = try engine.render(frames: 4_800)
            let level = SampleAnalysis.rms(SampleAnalysis.channel(out, 0, of: 2))
            #expect(level > 0.03 && level < 0.1, "one voice's level, not two: \(level)")
            #expect(engine.withLock { engine.voicePoolLocked.liveVoiceCount } == 6)
        }
    }
}
