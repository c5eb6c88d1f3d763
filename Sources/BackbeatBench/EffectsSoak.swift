import Backbeat
import BackbeatEffects
import BackbeatEngine
import BackbeatMedia
import Foundation

/// Random effect triggers: one-shots, finite loops, loops stopped later,
/// scheduled starts on a beat grid, pauses and resumes. Half the sounds are
/// files under a cache budget too small for all of them, so loads, cache
/// misses and evictions can happen all along.
package final class EffectsSoak: SoakParticipant {
    package let name = "effects"
    private var sounds: [SoundEffect] = []
    private var loops: [Voice] = []
    private var directory: URL?
    private(set) var triggers = 0
    private(set) var stopped = 0
    /// Triggers per second, on average.
    let rate: Double

    /// Triggers `rate` voices per second on average.
    package init(rate: Double = 200) { self.rate = rate }

    package func start(engine: AudioEngine) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "backbeat-soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        var random = SeededRandom(seed: 77)
        for i in 0..<8 {
            let rate = i % 3 == 0 ? 44_100 : 48_000
            let channels = i % 2 + 1
            let frames = rate / 20 * (1 + i)  // 50 ms ... 400 ms
            var floats = [Float](repeating: 0, count: frames * channels)
            let frequency = 150.0 * Double(i + 1)
            for f in 0..<frames {
                let envelope = exp(-4 * Double(f) / Double(frames))
                let tone = sin(2 * .pi * frequency * Double(f) / Double(rate)) * 0.6 + (random.nextUnit() - 0.5) * 0.1
                for c in 0..<channels { floats[f * channels + c] = Float(envelope * tone) }
            }
            let pcm = try PCMBuffer(format: AudioFormat(sampleRate: rate, channelCount: channels), floats: floats)
            if i % 2 == 0 {
                sounds.append(try SoundEffect(buffer: pcm, name: "soak\(i)", engine: engine))
            } else {
                let url = directory.appendingPathComponent("soak\(i).wav")
                try BenchFiles.writeWAV(pcm, to: url)
                sounds.append(SoundEffect(contentsOf: url, engine: engine))
            }
        }
        // Below the sounds' total (about 525 kB): the cache runs over budget while they
        // all play and must evict whatever goes quiet.
        engine.effectCacheBudget = 300_000
        for (i, sound) in sounds.enumerated() where i % 4 == 1 { sound.maximumInstances = 4 }
        sounds[3].minimumRetriggerInterval = MediaTime(value: 1, timescale: 20)
    }

    package func tick(engine: AudioEngine, random: inout SeededRandom, second: Double) {
        let expected = rate / 200
        var count = Int(expected)
        if random.nextUnit() < expected - Double(count) { count += 1 }
        for _ in 0..<count {
            let sound = sounds[random.next(in: 0..<sounds.count)]
            let volume = Float(0.2 + 0.6 * random.nextUnit())
            let pan = Float(2 * random.nextUnit() - 1)
            let pitch = Float(0.7 + 0.6 * random.nextUnit())
            let priority = random.next(in: 0..<4)
            switch random.next(in: 0..<20) {
            case 0:
                loops.append(
                    sound.play(volume: volume * 0.5, pan: pan, rate: pitch, looping: .forever, priority: priority))
            case 1, 2:
                sound.play(
                    volume: volume, pan: pan, rate: pitch, looping: .times(random.next(in: 1..<4) + 1),
                    priority: priority)
            case 3, 4:
                // Quantized to the next 125 ms step, as the drum pad does to a beat.
                let step = MediaTime(value: 1, timescale: 8)
                let now = engine.currentTime.seconds
                let next = MediaTime(
                    seconds: (now / step.seconds).rounded(.down) * step.seconds + step.seconds,
                    preferredTimescale: 48_000)
                sound.play(at: next, volume: volume, pan: pan, rate: pitch, priority: priority)
            default:
                sound.play(volume: volume, pan: pan, rate: pitch, priority: priority)
            }
            triggers += 1
        }
        if !loops.isEmpty, random.next(in: 0..<100) == 0 {
            let voice = loops.remove(at: random.next(in: 0..<loops.count))
            if random.next(in: 0..<3) == 0 {
                try? voice.pause()
                try? voice.resume()
            }
            voice.stop()
            stopped += 1
        }
        // Keep a bounded number of loops alive: the oldest goes.
        if loops.count > 24 {
            loops.removeFirst().stop()
            stopped += 1
        }
    }

    package func finish(engine: AudioEngine) {
        for voice in loops { voice.stop() }
        loops.removeAll()
        sounds.removeAll()
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    package var underruns: Int { 0 }
    package var summary: String { "\(triggers) triggers, \(stopped) loops stopped" }
}
