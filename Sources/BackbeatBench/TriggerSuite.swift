import Backbeat
import BackbeatEffects
import BackbeatEngine
import BackbeatMedia
import Foundation

/// What one call costs the game loop: `SoundEffect.play()` on a cached sound
/// against a raw `alSourcePlay` on a prepared source, and a `SoundEvent`
/// trigger (a random pick of three variations, avoiding the last, with random
/// volume, pitch and pan) against that `play()`, timed call by call in
/// alternating blocks, with rendering between triggers so voices come and go
/// as in a game; the calls are cut into rounds, and each cost figure is the
/// median of the rounds' percentiles, with their spread. Then how many frames pass between `play()` and the first
/// sample out, and whether `play(at:)` lands on its frame.
package struct TriggerSuite: BenchSuite {
    package let name = "trigger"
    package let summary =
        "cost of SoundEffect.play() vs raw alSourcePlay and of a SoundEvent trigger vs play() (p50/p99), trigger-to-first-sample latency, play(at:) accuracy"

    /// The suite.
    package init() {}

    /// Per-call costs in microseconds.
    package struct Costs: Sendable {
        /// `play()` costs, in call order.
        package let backbeat: [Double]
        /// `alSourcePlay` costs, in call order.
        package let raw: [Double]
        /// `SoundEvent.play()` costs, in call order.
        package let event: [Double]

        /// The calls cut into `rounds` consecutive stretches; a stretch of each
        /// side was timed in the same alternating blocks, so it is one round.
        package func rounds(_ rounds: Int) -> [(
            backbeat: ArraySlice<Double>, raw: ArraySlice<Double>, event: ArraySlice<Double>
        )] {
            let count = min(backbeat.count, raw.count, event.count)
            let rounds = max(1, min(rounds, count))
            return (0..<rounds).map { r in
                let range = (r * count / rounds)..<((r + 1) * count / rounds)
                return (backbeat[range], raw[range], event[range])
            }
        }
    }

    /// Times `triggers` calls on each side, alternating blocks of `block` calls.
    /// Every fourth call renders one update period.
    package func measureCosts(triggers: Int, block: Int = 1_000) throws -> Costs {
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        let click = Self.click()
        let sound = try SoundEffect(buffer: click, name: "click", engine: engine)
        let baseline = try OpenALBaseline(sampleRate: 48_000, channels: 2)
        defer { baseline.close() }
        // The event picks among three variations of the click, as a game's footstep would.
        let variations = try (0..<3).map { i in
            try SoundEffect(buffer: Self.click(frequency: 2_000 + 150 * Double(i)), name: "click\(i)", engine: engine)
        }
        let event = try SoundEvent(name: "clicks", sounds: variations, mode: .random, seed: 1)
        event.avoidRepeatingLast = 1
        event.randomization = .init(volumeDecibels: -6...0, pitchCents: -50...50, pan: -1...1)
        let rawSound = try baseline.addSound(click)
        let rawSources = 64
        for i in 0..<rawSources {
            _ = try baseline.addVoice(sound: rawSound, gain: 0.5, pan: Self.pans[i % Self.pans.count], looping: false)
        }
        let chunk = engine.updateInterval
        var scratch = [Float](repeating: 0, count: chunk * 2)
        var backbeat: [Double] = []
        var raw: [Double] = []
        var events: [Double] = []
        backbeat.reserveCapacity(triggers)
        raw.reserveCapacity(triggers)
        events.reserveCapacity(triggers)

        func backbeatBlock(_ count: Int, record: Bool) throws {
            for i in 0..<count {
                let pan = Self.pans[i % Self.pans.count]
                let start = monotonicNanoseconds()
                sound.play(volume: 0.5, pan: pan)
                let end = monotonicNanoseconds()
                if record { backbeat.append(Double(end - start) / 1e3) }
                if i % 4 == 3 { try engine.render(frames: chunk, reusing: &scratch) }
            }
        }
        func eventBlock(_ count: Int, record: Bool) throws {
            for i in 0..<count {
                let start = monotonicNanoseconds()
                event.play(volume: 0.5)
                let end = monotonicNanoseconds()
                if record { events.append(Double(end - start) / 1e3) }
                if i % 4 == 3 { try engine.render(frames: chunk, reusing: &scratch) }
            }
        }
        func rawBlock(_ count: Int, record: Bool, from offset: Int) {
            for i in 0..<count {
                let start = monotonicNanoseconds()
                baseline.play((offset + i) % rawSources)
                let end = monotonicNanoseconds()
                if record { raw.append(Double(end - start) / 1e3) }
                if i % 4 == 3 { baseline.render(frames: chunk, into: &scratch, chunk: chunk) }
            }
        }
        // Warm up both sides (allocations, caches) before recording.
        try backbeatBlock(min(block, 500), record: false)
        try eventBlock(min(block, 500), record: false)
        rawBlock(min(block, 500), record: false, from: 0)
        var done = 0
        var round = 0
        while done < triggers {
            let n = min(block, triggers - done)
            // The three sides take turns at going first.
            switch round % 3 {
            case 0:
                try backbeatBlock(n, record: true)
                try eventBlock(n, record: true)
                rawBlock(n, record: true, from: done)
            case 1:
                try eventBlock(n, record: true)
                rawBlock(n, record: true, from: done)
                try backbeatBlock(n, record: true)
            default:
                rawBlock(n, record: true, from: done)
                try backbeatBlock(n, record: true)
                try eventBlock(n, record: true)
            }
            done += n
            round += 1
        }
        return Costs(backbeat: backbeat, raw: raw, event: events)
    }

    /// Frames from `play()` (called between two renders, mid update period)
    /// to the first non-zero output frame, for Backbeat and for raw OpenAL.
    package func measureLatency() throws -> (backbeat: Int, raw: Int, outputLatency: Int) {
        let tick = Self.tick()
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        let sound = try SoundEffect(buffer: tick, name: "tick", engine: engine)
        _ = try engine.render(frames: 1_000)
        sound.play()
        let backbeat = Self.firstAudibleFrame(try engine.render(frames: 2_000), channels: 2) ?? -1

        let baseline = try OpenALBaseline(sampleRate: 48_000, channels: 2)
        defer { baseline.close() }
        _ = try baseline.addVoice(sound: try baseline.addSound(tick), gain: 1, pan: 0, looping: false)
        _ = baseline.render(frames: 1_000, chunk: engine.updateInterval)
        baseline.play(0)
        let raw =
            Self.firstAudibleFrame(baseline.render(frames: 2_000, chunk: engine.updateInterval), channels: 2) ?? -1
        return (backbeat, raw, engine.outputLatencyFrames)
    }

    /// The largest distance in frames between a `play(at:)` target and the
    /// first frame heard, over `trials` seeded targets from 1 frame to 0.5 s ahead.
    package func measureScheduleError(trials: Int) throws -> Int {
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        let sound = try SoundEffect(buffer: Self.tick(), name: "tick", engine: engine)
        var random = SeededRandom(seed: 9)
        _ = try engine.render(frames: 137)
        var worst = 0
        for _ in 0..<trials {
            let now = engine.currentTime.frames(atSampleRate: 48_000, rounding: .nearest)
            let ahead = random.next(in: 1..<24_000)
            sound.play(at: MediaTime(frames: now + Int64(ahead), sampleRate: 48_000))
            let out = try engine.render(frames: ahead + 1_000)
            let heard = Self.firstAudibleFrame(out, channels: 2).map { Int(now) + $0 } ?? Int.max / 2
            worst = max(worst, abs(heard - (Int(now) + ahead)))
        }
        return worst
    }

    package func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let triggers = options.quick ? 400 : 20_000
        let costs = try measureCosts(triggers: triggers, block: options.quick ? 100 : 1_000)
        let rounds = costs.rounds(options.rounds)
        let p50 = rounds.map { percentile(Array($0.backbeat), 0.5) }
        let p99 = rounds.map { percentile(Array($0.backbeat), 0.99) }
        let rawP50 = rounds.map { percentile(Array($0.raw), 0.5) }
        let rawP99 = rounds.map { percentile(Array($0.raw), 0.99) }
        let eventP50 = rounds.map { percentile(Array($0.event), 0.5) }
        let eventP99 = rounds.map { percentile(Array($0.event), 0.99) }
        let eventRatio = zip(eventP50, p50).map { $1 > 0 ? $0 / $1 : 0 }
        let perRound = triggers / rounds.count
        log(
            "play(): p50 \(fmt(median(p50))) µs, p99 \(fmt(median(p99))) µs, max \(fmt(costs.backbeat.max() ?? 0)) µs over \(triggers)"
        )
        log(
            "alSourcePlay: p50 \(fmt(median(rawP50))) µs, p99 \(fmt(median(rawP99))) µs, max \(fmt(costs.raw.max() ?? 0)) µs over \(triggers)"
        )
        log(
            "SoundEvent.play(): p50 \(fmt(median(eventP50))) µs, p99 \(fmt(median(eventP99))) µs, \(fmt(median(eventRatio)))x play() at p50, max \(fmt(costs.event.max() ?? 0)) µs over \(triggers)"
        )
        let latency = try measureLatency()
        log(
            "first sample after play(): Backbeat \(latency.backbeat) frames, raw \(latency.raw) frames (limiter lookahead \(latency.outputLatency))"
        )
        let scheduleError = try measureScheduleError(trials: options.quick ? 10 : 200)
        log("play(at:): worst error \(scheduleError) frames")
        return [
            Figure(
                key: "p50_us", rounds: p50,
                unit:
                    "µs, SoundEffect.play() on a cached sound, median call of \(perRound) per round, \(rounds.count) rounds"
            ),
            Figure(key: "p99_us", rounds: p99, unit: "µs, the same, 99th percentile per round (goal < 500)"),
            Figure(
                key: "raw_p50_us", rounds: rawP50,
                unit: "µs, raw alSourcePlay, median call of \(perRound) per round, \(rounds.count) rounds"),
            Figure(key: "raw_p99_us", rounds: rawP99, unit: "µs, raw alSourcePlay, 99th percentile per round"),
            Figure(
                key: "event_us_p50", rounds: eventP50,
                unit:
                    "µs, SoundEvent.play() (random of 3, avoid last 1, random volume, pitch and pan), median call of \(perRound) per round, \(rounds.count) rounds"
            ),
            Figure(key: "event_us_p99", rounds: eventP99, unit: "µs, the same, 99th percentile per round"),
            Figure(
                key: "event_ratio_vs_play", rounds: eventRatio,
                unit:
                    "SoundEvent.play() p50 / SoundEffect.play() p50, per round (the event's own cost on top of a play)"),
            Figure(
                key: "latency_frames", value: Double(latency.backbeat),
                unit: "frames from play() to first sample at 48 kHz"),
            Figure(
                key: "raw_latency_frames", value: Double(latency.raw),
                unit: "frames from alSourcePlay to first sample (limiter lookahead \(latency.outputLatency))"),
            Figure(
                key: "schedule_error_frames", value: Double(scheduleError),
                unit: "frames, worst play(at:) error over \(options.quick ? 10 : 200) targets (goal 0)"),
        ]
    }

    // MARK: Sounds

    static let pans: [Float] = [-1, -0.5, 0, 0.5, 1, 0.25, -0.75, 0.8]

    /// A 10 ms decaying click at `frequency` (2 kHz), mono 48 kHz.
    static func click(frequency: Double = 2_000) -> PCMBuffer {
        let floats = (0..<480).map { (i: Int) -> Float in
            let t = Double(i)
            let envelope: Double = 0.8 * exp(-t / 80)
            return Float(envelope * sin(2 * Double.pi * frequency * t / 48_000 + 0.5))
        }
        return try! PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: floats)
    }

    /// 200 frames of a constant 0.5: audible from its first frame.
    static func tick() -> PCMBuffer {
        try! PCMBuffer(
            format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: [Float](repeating: 0.5, count: 200))
    }

    /// The index of the first frame with a non-zero sample.
    package static func firstAudibleFrame(_ samples: [Float], channels: Int) -> Int? {
        samples.firstIndex { $0 != 0 }.map { $0 / channels }
    }

    private func fmt(_ v: Double) -> String { String(format: "%.2f", v) }
}
