import Backbeat
import BackbeatSupport
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEffects

@Suite("Virtual voices by audibility")
struct VirtualVoiceTests {
    /// A loop that never repeats within itself: a rising chirp over 0.37 s,
    /// so its phase tells where in the loop it is.
    static func chirp(sampleRate: Int) throws -> PCMBuffer {
        let frames = Int(0.37 * Double(sampleRate))
        let samples = (0..<frames).map { i -> Float in
            let t = Double(i) / Double(sampleRate)
            return Float(0.5 * sin(2 * Double.pi * (300 * t + 900 * t * t)))
        }
        return try PCMBuffer(format: AudioFormat(sampleRate: sampleRate, channelCount: 1), floats: samples)
    }

    static let near = Audio3DPoint(x: 0, y: 0, z: -1)
    /// 5 km away: -74 dB by the default inverse model, below the -60 dB threshold.
    static let far = Audio3DPoint(x: 0, y: 0, z: -5_000)

    /// Renders a chirp loop placed near for 9,600 frames, then far for `away`
    /// frames (or near all along), then near for 9,600; returns the 24,000
    /// frames after that, whether it was virtual while far, and its loop count.
    static func render(sampleRate: Int, away: Int?) throws -> (out: [Float], virtualWhileFar: Bool, loops: Int) {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(buffer: chirp(sampleRate: sampleRate), name: "chirp", engine: engine)
            let voice = sound.play(at: nil, position: near, looping: .forever)
            _ = try engine.render(frames: 9_600)
            var virtualWhileFar = false
            if let away {
                voice.position = far
                _ = try engine.render(frames: away)
                virtualWhileFar = voice.state == .virtual
                voice.position = near
            }
            _ = try engine.render(frames: 9_600 + (away == nil ? awayFrames : 0))
            let out = try engine.render(frames: 24_000)
            return (out, virtualWhileFar, voice.loopCount)
        }
    }

    /// Two seconds and a bit: long enough for a clock that drifts by OpenAL's
    /// fixed-point resampling step (53 ppm at 44.1 kHz) to be heard.
    static let awayFrames = 96_017

    @Test(
        "A loop sent out of earshot goes virtual and comes back in phase with a voice that never left",
        arguments: [48_000, 44_100])
    func inPhase(sampleRate: Int) throws {
        let reference = try Self.render(sampleRate: sampleRate, away: nil)
        let returned = try Self.render(sampleRate: sampleRate, away: Self.awayFrames)
        #expect(returned.virtualWhileFar)
        #expect(returned.loops == reference.loops)
        let a = SampleAnalysis.channel(reference.out, 0, of: 2)
        let b = SampleAnalysis.channel(returned.out, 0, of: 2)
        #expect(SampleAnalysis.rms(a) > 0.1)
        // Cross-correlation over ±200 frames peaks at lag 0.
        func correlation(_ lag: Int) -> Double {
            var sum = 0.0
            for i in 400..<(a.count - 400) { sum += Double(a[i]) * Double(b[i + lag]) }
            return sum
        }
        let best = (-200...200).max { correlation($0) < correlation($1) }
        #expect(best == 0)
        // And sample for sample: the difference is 60 dB below the signal
        // (a sample's misplacement, or the resampler's fraction of one, reads -30 dB).
        let difference = zip(a, b).map { $0 - $1 }
        let ratio = 20 * log10(Double(SampleAnalysis.rms(difference)) / Double(SampleAnalysis.rms(a)))
        #expect(ratio < -60, "difference \(ratio) dB")
    }

    @Test("A virtual voice keeps its time: its loop count and position advance with engine time")
    func keepsTime() throws {
        try withOfflineEngine { engine in
            let loop = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 4_800), name: "loop", engine: engine)
            let heard = loop.play(at: nil, position: Self.near, looping: .forever)
            let silent = loop.play(at: nil, position: Self.far, looping: .forever)
            _ = try engine.render(frames: 2_400)
            #expect(silent.state == .virtual)
            #expect(heard.state == .playing)
            _ = try engine.render(frames: 48_000)
            #expect(silent.state == .virtual)
            #expect(silent.loopCount == 10)
            #expect(heard.loopCount == silent.loopCount)
            let drift = abs((silent.currentTime - heard.currentTime).seconds)
            #expect(drift < 0.006, "virtual and audible voices agree on the time within an update step")
        }
    }

    @Test("A one-shot that ends while virtual finishes, completed, with its events")
    func oneShotEndsVirtual() throws {
        try withOfflineEngine { engine in
            let recorder = EventRecorder(engine)
            let blip = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 9_600), name: "blip", engine: engine)
            let done = LockedValueBox<Bool?>(nil)
            let voice = blip.play(at: nil, position: Self.near) { result in done.withLockedValue { $0 = result } }
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .playing)
            voice.position = Self.far
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .virtual)
            _ = try engine.render(frames: 7_200)
            #expect(voice.isFinished)
            #expect(done.withLockedValue { $0 } == true)
            #expect(recorder.events.contains(.voiceVirtualized(voice: voice.id, sound: "blip")))
            #expect(recorder.events.contains(.voiceFinished(voice: voice.id, sound: "blip", completed: true)))
            // One that starts out of earshot is virtual from its first frame and ends on time.
            let distant = blip.play(at: nil, position: Self.far)
            #expect(distant.state == .virtual)
            _ = try engine.render(frames: 7_200)
            #expect(!distant.isFinished)
            _ = try engine.render(frames: 4_800)
            #expect(distant.isFinished)
            #expect(recorder.events.contains(.voiceFinished(voice: distant.id, sound: "blip", completed: true)))
        }
    }

    @Test("Volume, buses and cones count toward audibility, not only distance")
    func busAndCone() throws {
        try withOfflineEngine { engine in
            let loop = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 4_800), name: "loop", engine: engine)
            let bus = engine.makeBus(named: "ambience")
            let voice = loop.play(at: nil, position: Audio3DPoint(x: 0, y: 0, z: -10), looping: .forever, bus: bus)
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .playing)
            bus.volume = 0.005  // -46 dB, and -20 dB for 10 m: -66 dB
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .virtual)
            bus.volume = 1
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .playing)
            // Facing away, with an outer gain of -46 dB: -66 dB again.
            voice.direction = Audio3DPoint(x: 0, y: 0, z: -1)
            voice.cone = AudioCone(innerAngle: 60, outerAngle: 120, outerGain: 0.005)
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .virtual)
            voice.direction = Audio3DPoint(x: 0, y: 0, z: 1)  // facing the listener
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .playing)
            voice.volume = 0.005
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .virtual)
        }
    }

    @Test("A voice's own distance curve counts; a voice passed straight through is never virtual by distance")
    func ownCurveAndPassThrough() throws {
        try withOfflineEngine { engine in
            let loop = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 4_800), name: "loop", engine: engine)
            let voice = loop.play(at: nil, position: Audio3DPoint(x: 0, y: 0, z: -25), looping: .forever)
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .playing, "-28 dB by the engine's inverse curve")
            voice.distanceAttenuationParameters = AudioDistanceAttenuationParameters(
                distanceAttenuationModel: .linear, referenceDistance: 1, maximumDistance: 20)
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .virtual, "silent beyond its own maximum distance")
            voice.distanceAttenuationParameters = nil
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .playing)
            let music = loop.play(at: nil, position: Self.far, looping: .forever)
            _ = try engine.render(frames: 2_400)
            #expect(music.state == .virtual)
            music.renderingAlgorithm = .stereoPassThrough
            _ = try engine.render(frames: 2_400)
            #expect(music.state == .playing)
            voice.stop()
            _ = try engine.render(frames: 2_400)
            let before = SampleAnalysis.rms(SampleAnalysis.channel(try engine.render(frames: 2_400), 0, of: 2))
            music.position = Audio3DPoint(x: 0, y: 0, z: -6_000)  // moving it does not place it
            _ = try engine.render(frames: 2_400)
            let after = SampleAnalysis.rms(SampleAnalysis.channel(try engine.render(frames: 2_400), 0, of: 2))
            #expect(before > 0.03)
            #expect(abs(after - before) < before * 0.01, "still passed through at its level")
        }
    }

    @Test("With 300 emitters and 16 sources, the mix holds the loudest and none of the quietest")
    func loudestWin() throws {
        try withOfflineEngine(maximumVoices: 16) { engine in
            // Emitter k: a sine at 400 + 20 k Hz (whole cycles in its 0.1 s loop) at 1 + 0.3 k metres.
            let count = 300
            var order = Array(0..<count)
            var random = SplitMix64(seed: 17)
            order.shuffle(using: &random)
            var voices: [Int: Voice] = [:]
            for k in order {
                let sound = try SoundEffect(
                    buffer: TestSignal.sine(frequency: Double(400 + 20 * k), duration: MediaTime(seconds: 0.1)),
                    name: "e\(k)", engine: engine)
                voices[k] = sound.play(
                    at: nil, position: Audio3DPoint(x: 0, y: 0, z: -(1 + 0.3 * Float(k))), looping: .forever)
            }
            _ = try engine.render(frames: 9_600)
            let mix = SampleAnalysis.channel(try engine.render(frames: 9_600), 0, of: 2)
            let levels = (0..<count).map {
                SampleAnalysis.level(of: mix, atFrequency: Double(400 + 20 * $0), sampleRate: 48_000)
            }
            // Straight ahead, a mono sound reaches each ear at 0.5957 of its level.
            let expected = { (k: Int) in Float(0.5 * 0.5957) / (1 + 0.3 * Float(k)) }
            for k in 0..<14 { #expect(levels[k] > expected(k) * 0.7, "emitter \(k) is among the loudest") }
            for k in 20..<count { #expect(levels[k] < expected(15) * 0.02, "emitter \(k) is not mixed") }
            let states = voices.values.map(\.state)
            #expect(states.filter { $0 == .playing }.count <= 16)
            #expect(states.filter { $0 == .virtual }.count >= count - 16)
            // The listener walks to a metre past the far end: the other end is heard now.
            engine.listenerPosition = Audio3DPoint(x: 0, y: 0, z: -(2 + 0.3 * Float(count - 1)))
            _ = try engine.render(frames: 9_600)
            let after = SampleAnalysis.channel(try engine.render(frames: 9_600), 0, of: 2)
            let nearest = count - 1
            #expect(
                SampleAnalysis.level(of: after, atFrequency: Double(400 + 20 * nearest), sampleRate: 48_000)
                    > expected(0) * 0.5)
            #expect(SampleAnalysis.level(of: after, atFrequency: 400, sampleRate: 48_000) < 0.003)
            #expect(voices[nearest]?.state == .playing)
            #expect(voices[0]?.state == .virtual)
        }
    }

    @Test("A new voice out of earshot takes no source; an audible one takes the least audible's")
    func stealingByAudibility() throws {
        try withOfflineEngine(maximumVoices: 2) { engine in
            let loop = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 4_800), name: "loop", engine: engine)
            let close = loop.play(at: nil, position: Self.near, looping: .forever)
            let further = loop.play(at: nil, position: Audio3DPoint(x: 0, y: 0, z: -20), looping: .forever)
            _ = try engine.render(frames: 2_400)
            let distant = loop.play(at: nil, position: Self.far)
            #expect(distant.state == .virtual)
            _ = try engine.render(frames: 2_400)
            #expect(close.state == .playing && further.state == .playing)
            let newcomer = loop.play(at: nil, position: Audio3DPoint(x: 0, y: 0, z: -2), looping: .forever)
            _ = try engine.render(frames: 2_400)
            #expect(newcomer.state == .playing)
            #expect(close.state == .playing, "the oldest is not taken: it is the most audible")
            #expect(further.state == .virtual, "the least audible gave up its source")
            // A quieter newcomer of the same priority does not take an audible voice's source.
            let quiet = loop.play(at: nil, position: Audio3DPoint(x: 0, y: 0, z: -40))
            _ = try engine.render(frames: 2_400)
            #expect(quiet.isFinished)
            #expect(close.state == .playing && newcomer.state == .playing)
        }
    }

    @Test("The threshold: NaN and values above 0 dB are ignored; -infinity keeps every voice sourced")
    func threshold() throws {
        try withOfflineEngine { engine in
            #expect(engine.audibilityThreshold == -60)
            engine.audibilityThreshold = .nan
            engine.audibilityThreshold = 3
            #expect(engine.audibilityThreshold == -60)
            let loop = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 4_800), name: "loop", engine: engine)
            let voice = loop.play(at: nil, position: Self.far, looping: .forever)
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .virtual)
            engine.audibilityThreshold = -.infinity
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .playing)
            engine.audibilityThreshold = -80  // 5 km is -74 dB
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .playing)
            engine.audibilityThreshold = -70
            _ = try engine.render(frames: 2_400)
            #expect(voice.state == .virtual)
        }
    }
}
