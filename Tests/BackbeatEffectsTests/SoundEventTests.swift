import Backbeat
import BackbeatTesting
import Foundation
import Testing

@Suite("SoundEvent")
struct SoundEventTests {
    /// `count` short tones, 300 Hz apart, so a render tells them apart.
    static func tones(_ count: Int, engine: AudioEngine, seconds: Double = 0.05) throws -> [SoundEffect] {
        try (0..<count).map { i in
            try SoundEffect(
                buffer: TestSignal.sine(frequency: 400 + 300 * Double(i), duration: MediaTime(seconds: seconds)),
                name: "tone\(i)", engine: engine)
        }
    }

    @Test("Shuffle plays every sound once per round, in a new order, for 2,000 rounds; never twice in a row")
    func shuffleNeverRepeatsBeforeExhaustion() throws {
        try withOfflineEngine { engine in
            let event = try SoundEvent(name: "s", sounds: Self.tones(5, engine: engine), mode: .shuffle, seed: 11)
            var previous: Int?
            var orders = Set<[Int]>()
            var twiceInARow = 0
            var badRounds = 0
            for _ in 0..<2_000 {
                var round: [Int] = []
                for _ in 0..<5 {
                    let index = try #require(event.nextPick().indices.first)
                    if index == previous { twiceInARow += 1 }
                    previous = index
                    round.append(index)
                }
                if round.sorted() != [0, 1, 2, 3, 4] { badRounds += 1 }
                orders.insert(round)
            }
            #expect(badRounds == 0, "rounds where a sound repeated before all had played")
            #expect(twiceInARow == 0, "picks equal to the one before")
            #expect(orders.count > 100, "the rounds come in many orders, not one")
        }
    }

    @Test("Avoid the last N holds over 10,000 random picks", arguments: [1, 2, 4])
    func avoidLastN(n: Int) throws {
        try withOfflineEngine { engine in
            let event = try SoundEvent(
                name: "r", sounds: Self.tones(6, engine: engine), mode: .random, weights: [8, 1, 1, 1, 1, 1], seed: 3)
            event.avoidRepeatingLast = n
            var history: [Int] = []
            var counts = [Int](repeating: 0, count: 6)
            var repeats = 0
            for _ in 0..<10_000 {
                let index = try #require(event.nextPick().indices.first)
                if history.suffix(n).contains(index) { repeats += 1 }
                history.append(index)
                counts[index] += 1
            }
            #expect(repeats == 0, "picks that repeated one of the last \(n)")
            #expect(counts.allSatisfy { $0 > 0 })
        }
    }

    @Test("Avoiding more than there are sounds still picks (every other sound in turn)")
    func avoidMoreThanSounds() throws {
        try withOfflineEngine { engine in
            let event = try SoundEvent(name: "r", sounds: Self.tones(3, engine: engine), seed: 5)
            event.avoidRepeatingLast = 10
            var picks: [Int] = []
            for _ in 0..<300 { picks.append(try #require(event.nextPick().indices.first)) }
            // Avoiding the last two of three leaves one choice: a fixed rotation.
            for i in 3..<picks.count { #expect(picks[i] == picks[i - 3]) }
            #expect(Set(picks.prefix(3)).count == 3)
        }
    }

    @Test("Random picks follow their weights within five standard deviations over 30,000 picks")
    func weightedFrequencies() throws {
        try withOfflineEngine { engine in
            let weights = [1.0, 2, 7, 0]
            let event = try SoundEvent(
                name: "w", sounds: Self.tones(4, engine: engine), mode: .random, weights: weights, seed: 99)
            let n = 30_000
            var counts = [Int](repeating: 0, count: 4)
            for _ in 0..<n { counts[try #require(event.nextPick().indices.first)] += 1 }
            #expect(counts[3] == 0, "a zero weight is never picked")
            for i in 0..<3 {
                let p = weights[i] / 10
                let expected = Double(n) * p
                let sigma = (Double(n) * p * (1 - p)).squareRoot()
                #expect(abs(Double(counts[i]) - expected) < 5 * sigma, "sound \(i): \(counts[i]) of \(n)")
            }
        }
    }

    @Test("Sequence plays in order and wraps; layered plays every sound on the same frame")
    func sequenceAndLayered() throws {
        try withOfflineEngine { engine in
            let sounds = try Self.tones(3, engine: engine)
            let event = try SoundEvent(name: "q", sounds: sounds, mode: .sequence)
            var names: [String] = []
            for _ in 0..<7 {
                let voices = event.play()
                names += voices.map(\.sound.name)
                _ = try engine.render(frames: 4_800)
            }
            #expect(names == ["tone0", "tone1", "tone2", "tone0", "tone1", "tone2", "tone0"])

            let layered = try SoundEvent(name: "l", sounds: sounds, mode: .layered)
            let voices = layered.play()
            #expect(voices.map(\.sound.name) == ["tone0", "tone1", "tone2"])
            let out = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
            let window = Array(out[200..<2_600])
            for hz in [400.0, 700, 1_000] {
                #expect(SampleAnalysis.level(of: window, atFrequency: hz, sampleRate: 48_000) > 0.1, "\(hz) Hz layer")
            }
            let first = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 1))
            #expect(Int64(first) <= engine.latencyFrames + 1)
        }
    }

    @Test("Cooldown refuses plays closer than it in engine time, to the frame")
    func cooldownByEngineTime() throws {
        try withOfflineEngine { engine in
            let event = try SoundEvent(name: "c", sounds: Self.tones(2, engine: engine))
            event.cooldown = MediaTime(frames: 4_800, sampleRate: 48_000)
            _ = try engine.render(frames: 333)
            #expect(event.play().count == 1)
            #expect(event.play().isEmpty)
            _ = try engine.render(frames: 4_799)
            #expect(event.play().isEmpty, "one frame short of the cooldown")
            _ = try engine.render(frames: 1)
            #expect(event.play().count == 1)
            // A play scheduled a cooldown ahead of the last is allowed; one just inside it is not.
            let now = engine.currentTime
            #expect(event.play(at: now + MediaTime(frames: 4_799, sampleRate: 48_000)).isEmpty)
            #expect(event.play(at: now + MediaTime(frames: 4_800, sampleRate: 48_000)).count == 1)
        }
    }

    @Test(
        "Maximum instances: oldest is stolen, quietest is stolen, none refuses",
        arguments: SoundEvent.StealPolicy.allCases)
    func maximumInstances(policy: SoundEvent.StealPolicy) throws {
        try withOfflineEngine { engine in
            let event = try SoundEvent(
                name: "m", sounds: Self.tones(3, engine: engine, seconds: 1), mode: .sequence, seed: 21)
            event.maximumInstances = 2
            event.stealPolicy = policy
            event.randomization = .init(volumeDecibels: -20...0)
            let a = event.play()
            let b = event.play()
            _ = try engine.render(frames: 480)
            let c = event.play()
            _ = try engine.render(frames: 4_800)
            let first = try #require(a.first)
            let second = try #require(b.first)
            switch policy {
            case .oldest:
                #expect(first.isFinished && !second.isFinished)
                #expect(c.count == 1 && c.allSatisfy { !$0.isFinished })
            case .quietest:
                let (quiet, loud) = first.volume < second.volume ? (first, second) : (second, first)
                #expect(quiet.isFinished && !loud.isFinished)
                #expect(c.count == 1 && c.allSatisfy { !$0.isFinished })
            case .none:
                #expect(c.isEmpty)
                #expect(!first.isFinished && !second.isFinished)
            }
            #expect(event.activeInstanceCount == 2)
            // The rendered mix holds exactly the two instances left.
            let out = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
            let heard = [400.0, 700, 1_000].map { SampleAnalysis.level(of: out, atFrequency: $0, sampleRate: 48_000) }
            #expect(heard.filter { $0 > 0.01 }.count == 2, "\(heard)")
            // Once they end, a new play is accepted whatever the policy.
            _ = try engine.render(frames: 48_000)
            #expect(event.activeInstanceCount == 0)
            #expect(event.play().count == 1)
        }
    }

    /// The frequency of the strongest component of `samples` in `band` (Goertzel, to 0.25 Hz).
    static func peakFrequency(_ samples: [Float], in band: ClosedRange<Double>) -> Double {
        func best(_ freqs: StrideThrough<Double>) -> Double {
            freqs.max {
                SampleAnalysis.level(of: samples, atFrequency: $0, sampleRate: 48_000)
                    < SampleAnalysis.level(of: samples, atFrequency: $1, sampleRate: 48_000)
            } ?? band.lowerBound
        }
        let coarse = best(stride(from: band.lowerBound, through: band.upperBound, by: 5))
        return best(stride(from: coarse - 5, through: coarse + 5, by: 0.25))
    }

    @Test("Random pitch stays within its cents range, measured on the rendered tone")
    func randomPitchWithinRange() throws {
        try withOfflineEngine { engine in
            let tone = try SoundEffect(
                buffer: TestSignal.sine(frequency: 1_000, duration: MediaTime(seconds: 0.3)), name: "k", engine: engine)
            let event = try SoundEvent(name: "p", sounds: [tone], seed: 1234)
            event.randomization = .init(pitchCents: -300...300)
            let low = 1_000 * pow(2, -300.0 / 1200)
            let high = 1_000 * pow(2, 300.0 / 1200)
            var measured: [Double] = []
            for _ in 0..<16 {
                let voice = try #require(event.play().first)
                let out = SampleAnalysis.channel(try engine.render(frames: 12_000), 0, of: 2)
                let hz = Self.peakFrequency(Array(out[1_000..<9_640]), in: 700...1_400)
                #expect(hz >= low - 2 && hz <= high + 2, "\(hz) Hz outside \(low)...\(high)")
                #expect(abs(hz - 1_000 * Double(voice.rate)) < 2, "heard \(hz) Hz at rate \(voice.rate)")
                measured.append(hz)
                _ = try engine.render(frames: 12_000)
            }
            #expect(measured.min()! < 960 && measured.max()! > 1_040, "the pitch varies: \(measured)")
        }
    }

    @Test("Plays in 3D at the position plus an offset within its range; 2D pans within the pan range")
    func positionAndPan() throws {
        try withOfflineEngine { engine in
            let event = try SoundEvent(name: "3d", sounds: Self.tones(2, engine: engine), seed: 8)
            event.randomization = .init(pan: 0.5...1, positionOffset: Audio3DPoint(x: 1, y: 0, z: 2))
            for _ in 0..<50 {
                let placed = try #require(event.play(position: Audio3DPoint(x: 10, y: 1, z: -5)).first)
                let p = try #require(placed.position)
                #expect(abs(p.x - 10) <= 1 && p.y == 1 && abs(p.z + 5) <= 2)
                let flat = try #require(event.play().first)
                #expect(flat.position == nil && flat.pan >= 0.5 && flat.pan <= 1)
                _ = try engine.render(frames: 4_800)
            }
            // Panned right: the right channel is louder.
            _ = event.play()
            let out = try engine.render(frames: 2_400)
            let left = SampleAnalysis.rms(SampleAnalysis.channel(out, 0, of: 2))
            let right = SampleAnalysis.rms(SampleAnalysis.channel(out, 1, of: 2))
            #expect(right > left * 1.5)
        }
    }

    @Test("A play's volume multiplies the event's volume and its random change")
    func playVolume() throws {
        func peak(volume: Float) throws -> Float {
            try withOfflineEngine { engine in
                let event = try SoundEvent(name: "v", sounds: Self.tones(1, engine: engine), seed: 5)
                event.volume = 0.8
                event.randomization = .init(volumeDecibels: -6...0)
                event.play(volume: volume)
                return SampleAnalysis.peak(try engine.render(frames: 4_800))
            }
        }
        let full = try peak(volume: 1)
        let half = try peak(volume: 0.5)
        let fromNaN = try peak(volume: .nan)
        #expect(full > 0.05 && abs(half / full - 0.5) < 0.01)
        #expect(fromNaN == full, "NaN means 1")
    }

    /// Renders twelve varied plays of an event seeded with `seed`.
    static func variedRender(seed: UInt64) throws -> [Float] {
        try withOfflineEngine { engine in
            let event = try SoundEvent(name: "v", sounds: tones(3, engine: engine), mode: .random, seed: seed)
            event.avoidRepeatingLast = 1
            event.randomization = .init(
                volumeDecibels: -12...0, pitchCents: -200...200, pan: -1...1,
                startDelay: .zero...MediaTime(seconds: 0.02))
            var out: [Float] = []
            for _ in 0..<12 {
                event.play()
                out += try engine.render(frames: 2_400)
            }
            return out
        }
    }

    @Test("The same seed renders the same samples; another seed does not")
    func seededRendersRepeat() throws {
        let a = try Self.variedRender(seed: 42)
        let b = try Self.variedRender(seed: 42)
        let c = try Self.variedRender(seed: 43)
        #expect(SampleAnalysis.peak(a) > 0.05)
        #expect(a == b)
        #expect(a != c)
    }

    @Test("A random start delay delays the onset by the drawn amount, within its range")
    func startDelay() throws {
        try withOfflineEngine { engine in
            let event = try SoundEvent(
                name: "d",
                sounds: [
                    try SoundEffect(buffer: TestSignal.constant(0.5, frames: 480), name: "dc", engine: engine)
                ], seed: 2)
            event.randomization = .init(
                startDelay: MediaTime(frames: 480, sampleRate: 48_000)...MediaTime(frames: 4_800, sampleRate: 48_000))
            var onsets: [Int] = []
            for _ in 0..<10 {
                event.play()
                let out = try engine.render(frames: 9_600)
                let first = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 2))
                onsets.append(first)
                #expect(first >= 480 && first <= 4_800 + 1, "onset \(first)")
            }
            #expect(Set(onsets).count > 5, "delays vary: \(onsets)")
        }
    }

    @Test("Bad events are refused with a typed error: no sounds, bad weights")
    func badEvents() throws {
        try withOfflineEngine { engine in
            let sounds = try Self.tones(2, engine: engine)
            for (s, w) in [
                ([], nil), (sounds, [1.0]), (sounds, [1, -1]), (sounds, [.nan, 1]), (sounds, [0, 0]),
                (sounds, [.infinity, 1]),
            ] as [([SoundEffect], [Double]?)] {
                #expect(throws: BackbeatError.self) { try SoundEvent(name: "bad", sounds: s, weights: w) }
                do { _ = try SoundEvent(name: "bad", sounds: s, weights: w) } catch let e as BackbeatError {
                    #expect(e.code == .invalidSoundEvent)
                    #expect(!e.description.contains("\n") && e.description.contains("\"bad\""))
                }
            }
        }
    }
}
