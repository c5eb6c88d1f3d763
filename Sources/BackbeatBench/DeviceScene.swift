import Backbeat
import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL
import BackbeatTesting
import COpenAL
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What one `backbeat bench device-scene` child plays, and what it reports.
package enum DeviceScene {
    /// Which side the child plays: Backbeat, raw OpenAL, only opens an
    /// engine to measure its latency, triggers clicks with `play()` for
    /// the trigger-to-sound figure, plays Backbeat's side while it turns
    /// monitoring off and on (``MonitorCycles``, the `monitor` suite's), or
    /// plays Backbeat's side placed in a level with acoustics on (the
    /// `acoustics` suite's `device_underruns`).
    package enum Side: String, Sendable, CaseIterable {
        case backbeat, raw, latency, trigger, monitor, acoustics
    }

    /// The child's report, one line: `underruns latency_ms`.
    package struct Result: Sendable {
        package var underruns: Int
        package var latencyMilliseconds: Double
        init(underruns: Int, latencyMilliseconds: Double) {
            self.underruns = underruns
            self.latencyMilliseconds = latencyMilliseconds
        }
        init?(line: String) {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let u = Int(parts[0]), let l = Double(parts[1]) else { return nil }
            self.init(underruns: u, latencyMilliseconds: l)
        }
        var line: String { "\(underruns) \(latencyMilliseconds)" }
    }

    /// The latency a child plays at, from its `--latency` word: `low`,
    /// `default`, `safe`, or a period size and count such as `128x3` (to
    /// try a setting before it becomes a preset). Nil for anything else.
    package static func latency(named word: String) -> AudioEngine.OutputLatency? {
        switch word {
        case "low": return .low
        case "default": return .default
        case "safe": return .safe
        default:
            let parts = word.split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let size = Int(parts[0]), let count = Int(parts[1]),
                (64...8_192).contains(size), (2...16).contains(count)
            else { return nil }
            return AudioEngine.OutputLatency(periodSize: size, periods: count)
        }
    }

    /// Plays the scene for `seconds` on the default device and writes the result to `result`.
    package static func run(side: Side, seconds: Int, latency: AudioEngine.OutputLatency, song: URL, result: URL) throws
    {
        let report: Result
        switch side {
        case .trigger:
            let triggers = try playTriggers(count: max(10, seconds * 8), latency: latency)
            try Data(triggers.line.utf8).write(to: result)
            return
        case .monitor:
            let engine = try AudioEngine(output: .device(latency: latency))
            defer { engine.shutdown() }
            let scene = try playScene(on: engine, song: song)
            let cycles = try MonitorCycles.run(engine: engine, seconds: seconds)
            withExtendedLifetime(scene) {}
            try Data(cycles.line.utf8).write(to: result)
            return
        case .backbeat: report = try playBackbeat(seconds: seconds, latency: latency, song: song)
        case .acoustics: report = try playAcoustics(seconds: seconds, latency: latency, song: song)
        case .raw: report = try playRaw(seconds: seconds, latency: latency, song: song)
        case .latency:
            let engine = try AudioEngine(output: .device(latency: latency))
            defer { engine.shutdown() }
            let scene = MixScene(voiceCount: 1)
            let sound = try SoundEffect(buffer: scene.sounds[0], name: "tone", engine: engine)
            sound.play(volume: 0.1, looping: .forever)
            // Let the stream run a while: until it does, OpenAL Soft reports 1 ms.
            var measured = engine.measuredOutputLatency
            for _ in 0..<20 where (measured?.latency.seconds ?? 0) <= 0.002 {
                usleep(100_000)
                measured = engine.measuredOutputLatency
            }
            // The server's buffer fills and drains by a period between the
            // mixer's writes, so one reading lands anywhere in that range:
            // the figure is the mean of 20, 10 ms apart, as `backbeat info` takes it.
            var readings: [Double] = []
            for _ in 0..<20 {
                if let reading = engine.measuredOutputLatency?.latency.seconds, reading > 0.002 {
                    readings.append(reading * 1_000)
                }
                usleep(10_000)
            }
            report = Result(
                underruns: 0,
                latencyMilliseconds: readings.isEmpty ? .nan : readings.reduce(0, +) / Double(readings.count))
        }
        try Data(report.line.utf8).write(to: result)
    }

    /// What the trigger side reports: the frame its reference click was
    /// scheduled on (`play(at:)`), and for each `play()` call its engine
    /// frame and the output latency read with the device clock just before
    /// (from a frame's mixing to its playing).
    package struct Triggers: Sendable {
        package var reference: Int64
        package var calls: [Int64]
        package var latencies: [Double]
        package var sampleRate: Int
        var line: String {
            "\(reference) \(sampleRate) \(calls.map(String.init).joined(separator: ",")) "
                + latencies.map { String($0) }.joined(separator: ",")
        }
        init(reference: Int64, calls: [Int64], latencies: [Double], sampleRate: Int) {
            self.reference = reference
            self.calls = calls
            self.latencies = latencies
            self.sampleRate = sampleRate
        }
        init?(line: String) {
            let parts = line.split(separator: " ")
            guard parts.count == 4, let reference = Int64(parts[0]), let rate = Int(parts[1]),
                (8_000...384_000).contains(rate)
            else { return nil }
            let calls = parts[2].split(separator: ",").compactMap { Int64($0) }
            let latencies = parts[3].split(separator: ",").compactMap { Double($0) }.filter { $0.isFinite }
            guard calls.count == latencies.count else { return nil }
            self.init(reference: reference, calls: calls, latencies: latencies, sampleRate: rate)
        }
    }

    /// A click: a 2-kHz tone at 0.6 from its first frame, gone within 30 ms (stereo, L = R).
    static func click(sampleRate: Int) throws -> PCMBuffer {
        let frames = sampleRate / 20
        var samples = [Float](repeating: 0, count: frames * 2)
        for i in 0..<frames {
            let t = Double(i) / Double(sampleRate)
            let value = Float(0.6 * exp(-t / 0.005) * sin(2 * Double.pi * 2_000 * t))
            samples[2 * i] = value
            samples[2 * i + 1] = value
        }
        return try PCMBuffer(format: AudioFormat(sampleRate: sampleRate, channelCount: 2), floats: samples)
    }

    /// Plays a reference click with `play(at:)`, then `count` clicks with
    /// `play()` about 0.1 s apart, each at a different moment within the
    /// device's period. A call's engine frame is the device clock's last
    /// tick plus the wall time since that tick was seen (engine time moves a
    /// device period at a time). The monitor recording, made by the parent,
    /// tells where each click sounded.
    private static func playTriggers(count: Int, latency: AudioEngine.OutputLatency) throws -> Triggers {
        let engine = try AudioEngine(output: .device(latency: latency))
        defer { engine.shutdown() }
        let rate = engine.sampleRate
        let sound = try SoundEffect(buffer: click(sampleRate: rate), name: "click", engine: engine)
        func waitFor(frame: Int64) { while engine.currentFrame < frame { usleep(1_000) } }
        waitFor(frame: Int64(rate) / 2)
        let reference = engine.currentFrame + Int64(rate) / 4
        sound.play(at: MediaTime(frames: reference, sampleRate: rate))
        waitFor(frame: reference + Int64(rate) / 5)
        var calls: [Int64] = []
        var latencies: [Double] = []
        for index in 0..<count {
            usleep(80_000)
            // The next tick of the device clock, the latency then, and when it was seen.
            let before = engine.currentFrame
            var tick = before
            var latency: Int64 = 0
            while tick == before {
                usleep(50)
                guard let reading = engine.frameAndOutputLatency else { throw BenchError("the device went away") }
                (tick, latency) = reading
            }
            let seen = monotonicNanoseconds()
            // Then a wait of 0 to 9.7 ms (0.3 ms more each time, modulo 10 ms): calls fall all over the period.
            usleep(UInt32((index * 300) % 10_000))
            let called = monotonicNanoseconds()
            sound.play()
            calls.append(tick + Int64(Double(called - seen) * Double(rate) / 1e9))
            latencies.append(Double(latency) / 1e6)
        }
        waitFor(frame: (calls.last ?? reference) + Int64(rate) / 5)
        return Triggers(reference: reference, calls: calls, latencies: latencies, sampleRate: rate)
    }

    /// Frames where a click starts in an interleaved stereo recording: the
    /// left channel first goes over 0.3, at least 50 ms after the previous one.
    static func clickOnsets(_ samples: [Float], sampleRate: Int) -> [Int] {
        var onsets: [Int] = []
        var frame = 0
        while 2 * frame < samples.count {
            if abs(samples[2 * frame]) > 0.3 {
                onsets.append(frame)
                frame += sampleRate / 20
            } else {
                frame += 1
            }
        }
        return onsets
    }

    /// The silences in a monitor recording of a scene that never falls
    /// silent while it plays (looping tones under a song), between its first
    /// and its last sound: runs of at least `minimumFrames` frames where both
    /// channels are zero. The sink mixes only that scene and a silent
    /// keep-awake stream, so such a run is the scene's stream running dry
    /// on the server, the device underrunning, which the game never hears
    /// of. A recording that drops frames (the recorder late) splices sound
    /// to sound and is not counted. Returns each silence's length in frames.
    ///
    /// - Parameters:
    ///   - samples: Interleaved stereo.
    ///   - minimumFrames: The shortest silence counted (48: 1 ms at 48 kHz).
    static func dropouts(_ samples: [Float], minimumFrames: Int = 48) -> [Int] {
        let frames = samples.count / 2
        func silent(_ frame: Int) -> Bool { abs(samples[2 * frame]) < 1e-6 && abs(samples[2 * frame + 1]) < 1e-6 }
        guard let first = (0..<frames).first(where: { !silent($0) }),
            let last = (0..<frames).last(where: { !silent($0) })
        else { return [] }
        var runs: [Int] = []
        var run = 0
        for frame in first...last {
            if silent(frame) {
                run += 1
            } else {
                if run >= minimumFrames { runs.append(run) }
                run = 0
            }
        }
        return runs
    }

    /// Milliseconds from each `play()` call to its click in the recording:
    /// the click's distance from the reference click in the recording, less
    /// the call's distance from the reference's target in engine time, plus
    /// the output latency read at the call's clock tick (the sink plays a
    /// frame that long after it is mixed). Nil when the recording does not hold one click per call.
    static func triggerToSound(_ triggers: Triggers, onsets: [Int]) -> [Double]? {
        guard onsets.count == triggers.calls.count + 1 else { return nil }
        let rate = Double(triggers.sampleRate)
        return zip(zip(onsets.dropFirst(), triggers.calls), triggers.latencies).map { pair, latency in
            let (onset, call) = pair
            let mixed = Double(Int64(onset - onsets[0]) - (call - triggers.reference)) / rate * 1_000
            return mixed + latency
        }
    }

    private static func playBackbeat(seconds: Int, latency: AudioEngine.OutputLatency, song: URL) throws -> Result {
        let engine = try AudioEngine(output: .device(latency: latency))
        defer { engine.shutdown() }
        let (sounds, player) = try playScene(on: engine, song: song)
        sleep(UInt32(seconds))
        withExtendedLifetime(sounds) {}
        return Result(underruns: player.underrunCount, latencyMilliseconds: .nan)
    }

    /// Starts the scene on `engine`: 64 looping voices and `song` streamed.
    ///
    /// - Parameters:
    ///   - engine: a device engine.
    ///   - song: the song to stream.
    /// - Returns: the sounds and the player, to keep for as long as the scene plays.
    static func playScene(on engine: AudioEngine, song: URL) throws -> (
        sounds: [SoundEffect], player: QueuePlayer
    ) {
        let scene = MixScene(voiceCount: 64)
        let sounds = try scene.sounds.enumerated().map {
            try SoundEffect(buffer: $0.element, name: "sound\($0.offset)", engine: engine)
        }
        let player = try QueuePlayer(engine: engine, items: [PlayerItem(asset: AudioAsset(url: song))])
        player.volume = 0.3
        player.play()
        for voice in scene.voices {
            sounds[voice.sound].play(volume: voice.gain * 0.1, pan: voice.pan, looping: .forever)
        }
        return (sounds, player)
    }

    /// Sleeps `microseconds` of real time, however long (usleep takes less than a second's worth on some systems).
    static func sleepMicroseconds(_ microseconds: UInt64) {
        var request = timespec(tv_sec: Int(microseconds / 1_000_000), tv_nsec: Int(microseconds % 1_000_000) * 1_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// Raw OpenAL, as a game without Backbeat would drive it: the same
    /// sounds on 64 looping sources, and the song decoded and streamed
    /// through four queued buffers refilled every 5 ms.
    private static func playRaw(seconds: Int, latency: AudioEngine.OutputLatency, song: URL) throws -> Result {
        _ = ALConfig.prepare(periodSize: latency.periodSize, periods: latency.periods)
        let device = try ALDevice.openPlayback(name: nil)
        defer { device.close() }
        let scene = MixScene(voiceCount: 64)
        let buffers = try scene.sounds.map { try device.generateBuffer($0) }
        var sources: [ALuint] = []
        for voice in scene.voices {
            let source = try device.generateSource()
            try device.withContext {
                alSourcei(source, AL_SOURCE_RELATIVE, 1)
                alSourcef(source, AL_ROLLOFF_FACTOR, 0)
                ALSource(name: source).setPan(voice.pan)
                alSourcef(source, AL_GAIN, voice.gain * 0.1)
                alSourcei(source, AL_LOOPING, 1)
                alSourcei(source, AL_BUFFER, ALint(bitPattern: buffers[voice.sound]))
                alSourcePlay(source)
            }
            sources.append(source)
        }
        let decoder = try AudioDecoders.open(song)
        defer { decoder.close() }
        let stream = try device.generateSource()
        let chunk = decoder.sampleRate / 12
        var samples: [Float] = []
        var streamBuffers: [ALuint] = []
        for _ in 0..<4 {
            _ = try decoder.read(frames: chunk, into: &samples)
            streamBuffers.append(
                try device.generateBuffer(
                    interleaved: samples, channels: decoder.channelCount, sampleRate: decoder.sampleRate))
        }
        var underruns = 0
        try device.withContext {
            alSourcef(stream, AL_GAIN, 0.3)
            alSourceQueueBuffers(stream, ALsizei(streamBuffers.count), &streamBuffers)
            alSourcePlay(stream)
        }
        let end = monotonicNanoseconds() + UInt64(seconds) * 1_000_000_000
        while monotonicNanoseconds() < end {
            usleep(5_000)
            var processed: ALint = 0
            try device.withContext { alGetSourcei(stream, AL_BUFFERS_PROCESSED, &processed) }
            for _ in 0..<Int(processed) {
                var name: ALuint = 0
                try device.withContext { alSourceUnqueueBuffers(stream, 1, &name) }
                if try decoder.read(frames: chunk, into: &samples) == 0 {
                    try decoder.seek(toFrame: 0)
                    _ = try decoder.read(frames: chunk, into: &samples)
                }
                try device.upload(
                    interleaved: samples, channels: decoder.channelCount, sampleRate: decoder.sampleRate, to: name)
                try device.withContext { alSourceQueueBuffers(stream, 1, &name) }
            }
            var state: ALint = 0
            try device.withContext { alGetSourcei(stream, AL_SOURCE_STATE, &state) }
            if state != AL_PLAYING {
                underruns += 1
                try device.withContext { alSourcePlay(stream) }
            }
        }
        try device.withContext { for source in sources + [stream] { alSourceStop(source) } }
        return Result(underruns: underruns, latencyMilliseconds: .nan)
    }
}
