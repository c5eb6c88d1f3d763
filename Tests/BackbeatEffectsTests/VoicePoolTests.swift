import Backbeat
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEffects

@Suite("VoicePool")
struct VoicePoolTests {
    @Test("When the pool is full, the lowest priority is stolen; all-more-important refuses")
    func stealing() throws {
        try withOfflineEngine(maximumVoices: 4) { engine in
            let recorder = EventRecorder(engine)
            let sound = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 48_000), name: "hum", engine: engine)
            let low = sound.play(priority: 1)
            let others = (0..<3).map { _ in sound.play(priority: 5) }
            _ = try engine.render(frames: 480)
            let important = sound.play(priority: 3)
            _ = try engine.render(frames: 2_400)
            #expect(low.isFinished)
            #expect(important.isPlaying)
            #expect(others.allSatisfy { $0.isPlaying })
            #expect(recorder.events.contains(.voiceStolen(voice: low.id, sound: "hum", by: important.id)))
            let refused = sound.play(priority: 0)
            #expect(refused.isFinished)
            #expect(
                recorder.events.contains(
                    .voiceRefused(voice: refused.id, sound: "hum", reason: .allVoicesMoreImportant)))
        }
    }

    @Test("Among equal priorities, the quietest is stolen, then the oldest")
    func quietestThenOldest() throws {
        try withOfflineEngine(maximumVoices: 3) { engine in
            let sound = try SoundEffect(buffer: TestSignal.constant(0.1, frames: 48_000), name: "hum", engine: engine)
            let oldest = sound.play()
            let quiet = sound.play(volume: 0.2)
            let newer = sound.play()
            _ = try engine.render(frames: 480)
            sound.play()
            _ = try engine.render(frames: 1_000)
            #expect(quiet.isFinished)
            #expect(!oldest.isFinished && !newer.isFinished)
            sound.play(volume: 1)
            _ = try engine.render(frames: 1_000)
            #expect(oldest.isFinished)
            #expect(!newer.isFinished)
        }
    }

    @Test("An instance cap takes over from the oldest instance")
    func instanceCap() throws {
        try withOfflineEngine { engine in
            let step = try SoundEffect(buffer: TestSignal.constant(0.05, frames: 24_000), name: "step", engine: engine)
            step.maximumInstances = 4
            let voices = (0..<6).map { _ in step.play() }
            _ = try engine.render(frames: 2_400)
            #expect(voices.prefix(2).allSatisfy { $0.isFinished })
            #expect(voices.suffix(4).allSatisfy { $0.isPlaying })
        }
    }

    @Test("Triggers closer than the retrigger interval are refused")
    func retriggerInterval() throws {
        try withOfflineEngine { engine in
            let recorder = EventRecorder(engine)
            let hit = try SoundEffect(buffer: TestSignal.constant(0.05, frames: 2_400), name: "hit", engine: engine)
            hit.minimumRetriggerInterval = MediaTime(seconds: 0.1)
            let first = hit.play()
            _ = try engine.render(frames: 2_400)  // 50 ms later
            let tooSoon = hit.play()
            _ = try engine.render(frames: 2_400)  // 100 ms after the first
            let inTime = hit.play()
            #expect(!first.isFinished || first.state == .finished)
            #expect(tooSoon.isFinished)
            #expect(
                recorder.events.contains(.voiceRefused(voice: tooSoon.id, sound: "hit", reason: .retriggeredTooSoon)))
            #expect(inTime.state != .finished)
        }
    }

    @Test("A looping voice that loses its source goes virtual and comes back at the right position")
    func virtualVoice() throws {
        try withOfflineEngine(maximumVoices: 2) { engine in
            // A ramp from 0 to 1 over one second: its value tells its position.
            let frames = 48_000
            let ramp = try PCMBuffer(
                format: AudioFormat(sampleRate: 48_000, channelCount: 1),
                floats: (0..<frames).map { Float($0) / Float(frames) })
            let loop = try SoundEffect(buffer: ramp, name: "ramp", engine: engine)
            let blocker = try SoundEffect(
                buffer: TestSignal.constant(0.0, frames: 24_000), name: "blocker", engine: engine)
            let looping = loop.play(looping: .forever, priority: 1)
            blocker.play(priority: 1)
            _ = try engine.render(frames: 4_800)
            blocker.play(priority: 9)  // steals the looping voice (equal priorities would also do; this is clearer)
            _ = try engine.render(frames: 2_400)
            #expect(looping.state == .virtual)
            let whileVirtual = looping.currentTime
            _ = try engine.render(frames: 9_600)
            // Virtual time moves with engine time.
            #expect(abs((looping.currentTime - whileVirtual).seconds - 0.2) < 0.011)
            // The blockers end after 0.5 s; the loop returns.
            _ = try engine.render(frames: 24_000)
            #expect(looping.state == .playing)
            let expected = looping.currentTime.seconds
            let out = try engine.render(frames: 480)
            // Mono straight ahead is 0.5957 per channel.
            let heard = SampleAnalysis.channel(out, 0, of: 2)[240] / 0.5957
            #expect(abs(Double(heard) - (expected + 0.005)) < 0.02)
        }
    }

    @Test("1,024 logical voices exist at once over the device's sources")
    func manyLogicalVoices() throws {
        try withOfflineEngine { engine in
            let loop = try SoundEffect(buffer: TestSignal.constant(0.001, frames: 4_800), name: "bed", engine: engine)
            let voices = (0..<1_100).map { _ in loop.play(looping: .forever) }
            _ = try engine.render(frames: 4_800)
            let counts = engine.withLock { engine.voicePoolLocked.stateCounts }
            #expect(engine.withLock { engine.voicePoolLocked.liveVoiceCount } == 1_100)
            #expect(counts[.playing, default: 0] <= engine.voiceSourceCount)
            #expect(counts[.virtual, default: 0] >= 1_100 - engine.voiceSourceCount)
            for v in voices { v.stop() }
            _ = try engine.render(frames: 4_800)
            #expect(engine.withLock { engine.voicePoolLocked.liveVoiceCount } == 0)
        }
    }

    @Test("After 100,000 triggers, sources and buffers return to where they started")
    func noLeaks() throws {
        try withOfflineEngine { engine in
            let sounds = try (0..<4).map {
                try SoundEffect(
                    buffer: TestSignal.sine(
                        frequency: 200 + 100 * Double($0), duration: MediaTime(seconds: 0.05 + 0.02 * Double($0))),
                    name: "s\($0)", engine: engine)
            }
            let sources = engine.device.liveSources.count
            let buffers = engine.device.liveBuffers.count
            var triggered = 0
            while triggered < 100_000 {
                for i in 0..<100 {
                    let sound = sounds[i % 4]
                    if i % 7 == 0 {
                        sound.play(
                            at: engine.currentTime + MediaTime(frames: Int64(i * 13), sampleRate: 48_000),
                            looping: .times(i % 3 + 1), priority: i % 5)
                    } else {
                        sound.play(pan: Float(i % 3) - 1, priority: i % 5)
                    }
                }
                triggered += 100
                try engine.advance(by: MediaTime(frames: 240, sampleRate: 48_000))
            }
            try engine.advance(by: MediaTime(seconds: 1))
            #expect(engine.withLock { engine.voicePoolLocked.liveVoiceCount } == 0)
            #expect(engine.device.liveSources.count == sources)
            #expect(engine.device.liveBuffers.count == buffers)
        }
    }

    @Test("With every source at full scale the limiter keeps the output within ±1")
    func headroom() throws {
        try withOfflineEngine { engine in
            let loud = try SoundEffect(
                buffer: TestSignal.sine(frequency: 100, duration: MediaTime(seconds: 0.5), amplitude: 1), name: "loud",
                engine: engine)
            for _ in 0..<engine.voiceSourceCount { loud.play() }
            let out = try engine.render(frames: 24_000)
            #expect(SampleAnalysis.peak(out) <= 1.0 + 1e-6, "within ±1 to float rounding")
            #expect(SampleAnalysis.peak(out) > 0.5)
        }
    }

    @Test("Voices the pool let go keep no sound alive: every buffer is back once the sounds are released")
    func releasedSoundsLeaveNoBuffers() throws {
        try withOfflineEngine(maximumVoices: 2) { engine in
            let baseline = engine.liveBufferCount
            func playAndLeave() throws {
                let sounds = try (0..<3).map {
                    try SoundEffect(buffer: TestSignal.constant(0.1, frames: 4_800), name: "loop\($0)", engine: engine)
                }
                // Three loops on two voices: one is stolen and waits, virtual,
                // so the audibility pass weighs it against the two playing.
                let voices = sounds.map { $0.play(looping: .forever) }
                _ = try engine.render(frames: 4_800)
                #expect(voices.filter { $0.state == .virtual }.count == 1)
                for voice in voices { voice.stop() }
                _ = try engine.render(frames: 4_800)
                #expect(voices.allSatisfy { $0.isFinished })
                #expect(engine.liveBufferCount == baseline + 3)
            }
            try playAndLeave()
            _ = try engine.render(frames: 240)  // a sound's release frees its buffer at the engine's next entry
            #expect(engine.liveBufferCount == baseline)
        }
    }
}
