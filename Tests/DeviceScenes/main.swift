import Backbeat
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport
import BackbeatTesting
// Device scenes for the tests: an engine on a real sound server, run as a
// child process (OpenAL picks its backends once per process). The test that
// starts a scene holds the server (PrivateSoundServer), acts on it when the
// scene says so, and records the sink's monitor. A scene prints one line per
// step, `word key=value ...`, and exits 0 when it reached its end, 2 when
// something it waited for never came.
//
//   DeviceScenes reopen DIR   the server is killed and restarted while voices, a loop and a stream play
//   DeviceScenes frozen DIR   the restarted server is frozen (SIGSTOP) while the engine tries to reopen
//   DeviceScenes timing DIR   clicks played with play(at:), measured on the device clock, and engine
//                             time beside a voice's position
//   DeviceScenes follow DIR   the server's default sink changes under an engine on the default device
//                             and one on the same device by name
//   DeviceScenes capture DIR  the engine plays a 1 kHz tone at 0.5; capture records the sink's monitor to DIR
//   DeviceScenes tone DIR     the engine plays a 1 kHz tone at 0.5 until the test writes "stop"
//   DeviceScenes nocapture DIR  opening the default capture device with no sound server
//   DeviceScenes replay DIR   four percussive sounds played at engine frames, captured to DIR/device.bbcap
import Foundation

/// Prints a line at once (standard output is a pipe: no buffering).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// What the test wrote on standard input, line by line.
let commands = LockedValueBox<[String]>([])
Thread.detachNewThread {
    while let line = readLine() { commands.withLockedValue { $0.append(line) } }
}

/// Waits (polling every 10 ms) until `condition` holds; `seconds` of wall time
/// only guards against waiting forever, and ends the scene with status 2.
func wait(_ what: String, seconds: Double = 60, _ condition: () -> Bool) {
    let giveUp = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > giveUp {
            say("timeout \(what)")
            exit(2)
        }
        usleep(10_000)
    }
}

/// Interleaved stereo, L = R: a sine of `frequency` whose amplitude goes from `from` to `to`.
func tone(_ frequency: Double, seconds: Double, from: Float, to: Float) -> [Float] {
    let frames = Int(seconds * 48_000)
    var out = [Float](repeating: 0, count: frames * 2)
    for i in 0..<frames {
        let amplitude = from + (to - from) * Float(i) / Float(frames)
        let value = amplitude * Float(sin(2 * Double.pi * frequency * Double(i) / 48_000))
        out[2 * i] = value
        out[2 * i + 1] = value
    }
    return out
}

/// A click: a 2-kHz tone at 0.6 from its first frame, decaying over 0.15 s (stereo, L = R).
func clickTone() -> [Float] {
    let frames = 7_200
    var out = [Float](repeating: 0, count: frames * 2)
    for i in 0..<frames {
        let value = 0.6 * Float(exp(-Double(i) / 2_400) * sin(2 * Double.pi * 2_000 * Double(i) / 48_000))
        out[2 * i] = value
        out[2 * i + 1] = value
    }
    return out
}

func stereo(_ samples: [Float]) throws -> PCMBuffer {
    try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 2), floats: samples)
}

func seconds(_ time: MediaTime) -> String { String(format: "%.3f", time.seconds) }

func counts(_ engine: AudioEngine) -> String {
    engine.withLock { "sources=\(engine.device.liveSources.count) buffers=\(engine.device.liveBuffers.count)" }
}

func events(_ recorder: EventRecorder, _ match: (PlaybackEvent) -> Bool) -> Int {
    recorder.events.filter(match).count
}

func isLost(_ event: PlaybackEvent) -> Bool { if case .outputLost = event { true } else { false } }
func isChanged(_ event: PlaybackEvent) -> Bool { if case .outputChanged = event { true } else { false } }

/// What plays in a scene: a looping tone (the loop), a 20-s tone rising from
/// 0.05 to 0.45 (the voice: its level says its place), and a 20-s music file
/// rising from 0.02 to 0.3 on a queue player (the stream).
struct Scene {
    let engine: AudioEngine
    let recorder: EventRecorder
    let loop: Voice
    let voice: Voice
    let player: QueuePlayer

    init(engine: AudioEngine, directory: URL, loopFrequency: Double = 1_000) throws {
        self.engine = engine
        recorder = EventRecorder(engine)
        let loopSound = try SoundEffect(
            buffer: stereo(tone(loopFrequency, seconds: 1, from: 0.2, to: 0.2)), name: "loop", engine: engine)
        let voiceSound = try SoundEffect(
            buffer: stereo(tone(440, seconds: 20, from: 0.05, to: 0.45)), name: "voice", engine: engine)
        let music = directory.appendingPathComponent("music-\(loopFrequency).wav")
        let writer = try SoundFileWriter(
            url: music, type: .wavFloat, sampleRate: 48_000, channelCount: 2, overwrite: true)
        try writer.write(tone(3_000, seconds: 20, from: 0.02, to: 0.3)[...])
        try writer.finish()
        player = try QueuePlayer(engine: engine, items: [PlayerItem(url: music)])
        loop = loopSound.play(looping: .forever)
        voice = voiceSound.play()
        player.play()
    }

    /// Where the voice and the stream are, and engine time.
    var positions: String {
        "voice=\(seconds(voice.currentTime)) music=\(seconds(player.currentPlaybackTime)) time=\(seconds(engine.currentTime))"
    }

    var states: String {
        "voice=\(voice.state) loop=\(loop.state) music=\(player.timeControlStatus)"
    }

    func waitForEngineTime(_ target: Double, _ what: String) {
        wait(what) { engine.currentTime.seconds >= target }
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    say("usage: DeviceScenes reopen|frozen|follow|timing|idle|snapshot|capture|tone|nocapture|replay DIR")
    exit(64)
}
let directory = URL(fileURLWithPath: arguments[2])

do {
    switch arguments[1] {
    case "reopen":
        let engine = try AudioEngine(output: .device())
        let scene = try Scene(engine: engine, directory: directory)
        scene.waitForEngineTime(3, "three seconds of play")
        say("playing device=\(engine.deviceName ?? "none") \(counts(engine)) \(scene.positions)")
        wait("the loss") { events(scene.recorder, isLost) > 0 }
        // The session hears of it from the engine's event delivery, and pauses the music.
        wait("the session pausing the music") { scene.player.timeControlStatus == .paused }
        say("lost \(scene.positions) \(scene.states)")
        wait("the reopen") { events(scene.recorder, isChanged) > 0 }
        say("restored device=\(engine.deviceName ?? "none") \(scene.positions) \(scene.states)")
        // The session paused the music when the device went (old device
        // unavailable, as on iOS); the game plays it on from where it was.
        scene.player.play()
        scene.waitForEngineTime(engine.currentTime.seconds + 1.5, "1.5 s on the reopened device")
        say("after \(counts(engine)) \(scene.positions) \(scene.states)")
        engine.shutdown()
        say("done")
    case "frozen":
        let engine = try AudioEngine(output: .device())
        let scene = try Scene(engine: engine, directory: directory)
        scene.waitForEngineTime(1, "one second of play")
        say("playing device=\(engine.deviceName ?? "none") \(scene.positions)")
        wait("the loss") { events(scene.recorder, isLost) > 0 }
        say("lost \(scene.positions)")
        wait("the test's word that the server is frozen") { commands.withLockedValue { $0.contains("frozen") } }
        // An attempt to reopen begins within the longest backoff, and waits on the frozen server.
        wait("an attempt to reopen under way") { engine.deviceWatchAttempts.isUnderWay }
        let stuck = engine.deviceWatchAttempts.started
        // Meanwhile the update thread goes on: engine time moves, a voice plays to its end.
        let blip = try SoundEffect(
            buffer: stereo(tone(2_000, seconds: 0.2, from: 0.1, to: 0.1)), name: "blip", engine: engine)
        let start = engine.currentTime.seconds
        let voice = blip.play()
        wait("the blip's end") {
            scene.recorder.events.contains { $0 == .voiceFinished(voice: voice.id, sound: "blip", completed: true) }
        }
        scene.waitForEngineTime(start + 1, "engine time while the server is frozen")
        let attempts = engine.deviceWatchAttempts
        say("alive-while-frozen stuck=\(attempts.isUnderWay && attempts.started == stuck) \(scene.positions)")
        wait("the reopen") { events(scene.recorder, isChanged) > 0 }
        say("restored device=\(engine.deviceName ?? "none") \(scene.positions) \(scene.states)")
        scene.waitForEngineTime(engine.currentTime.seconds + 1, "a second on the reopened device")
        engine.shutdown()
        say("done")
    case "timing":
        // play(at:) on the device, and engine time against the device's own
        // count: a quiet bed plays throughout, and 13 clicks about 0.25 s
        // apart, each 1.1 ms later in its gap than the one before, so that
        // their targets fall all over the update period.
        let engine = try AudioEngine(output: .device())
        let rate = Int64(engine.sampleRate)
        let click = try SoundEffect(buffer: stereo(clickTone()), name: "click", engine: engine)
        let bed = try SoundEffect(
            buffer: stereo(tone(300, seconds: 20, from: 0.05, to: 0.05)), name: "bed", engine: engine)
        let bedVoice = bed.play()
        wait("half a second of play") { engine.currentTime.seconds >= 0.5 }
        let base = engine.currentFrame + rate / 2
        let targets = (0..<13).map { base + Int64($0) * (rate / 4 + rate * 11 / 10_000) }
        let voices = targets.map { click.play(at: MediaTime(frames: $0, sampleRate: Int(rate))) }
        // Each click's start as the device measured it (its source's
        // position and the device clock read together), while it plays; and
        // every 0.1 s of engine time, engine time beside the bed's position.
        var starts = [Int64?](repeating: nil, count: voices.count)
        var pairs: [String] = []
        var nextPair = engine.currentFrame
        let giveUp = Date().addingTimeInterval(60)
        while starts.contains(where: { $0 == nil }) || engine.currentFrame < targets.last! + rate / 2 {
            for (index, voice) in voices.enumerated() where starts[index] == nil {
                starts[index] = voice.measuredStartFrame
            }
            let now = engine.currentFrame
            if now >= nextPair {
                // Engine time, the bed's position, engine time again: a pair
                // counts only when the device did not move in between.
                let time = engine.currentTime
                let played = bedVoice.currentTime
                if engine.currentTime == time {
                    pairs.append("\(time.frames(atSampleRate: Int(rate))):\(played.frames(atSampleRate: Int(rate)))")
                    nextPair = now + rate / 10
                }
            }
            if Date() > giveUp {
                say("timeout the clicks \(starts)")
                exit(2)
            }
            usleep(1_000)
        }
        let period = engine.measuredOutputLatency?.periodSize ?? 0
        say(
            "timing update=\(engine.updateInterval) period=\(period) rate=\(rate) "
                + "targets=\(targets.map(String.init).joined(separator: ",")) "
                + "starts=\(starts.map { String($0!) }.joined(separator: ",")) pairs=\(pairs.joined(separator: ","))")
        engine.shutdown()
        say("done")
    case "idle":
        // A steady scene (an endless loop, a long voice, a streamed song): the
        // update loop sleeps until something is due, so over a second of
        // engine time it wakes far fewer times than the 200 update periods.
        // Then a short one-shot on the sleeping loop: it is reaped, and its
        // completion reported, soon after its end.
        let engine = try AudioEngine(output: .device())
        let scene = try Scene(engine: engine, directory: directory)
        // Sixteen more endless loops of different lengths, whose wrap checks fall all over the second.
        let loops = try (0..<16).map { index in
            try SoundEffect(
                buffer: stereo(
                    tone(200 + 50 * Double(index), seconds: 0.25 + 0.05 * Double(index), from: 0.01, to: 0.01)),
                name: "loop\(index)", engine: engine)
        }
        for loop in loops { loop.play(looping: .forever) }
        scene.waitForEngineTime(0.5, "half a second of play")
        let (startFrame, startSteps) = (engine.currentFrame, engine.realTimeSteps)
        wait("a second of engine time") { engine.currentFrame >= startFrame + 48_000 }
        let (endFrame, endSteps) = (engine.currentFrame, engine.realTimeSteps)
        let click = try SoundEffect(
            buffer: stereo(tone(880, seconds: 0.3, from: 0.2, to: 0.2)), name: "shot", engine: engine)
        let ended = LockedValueBox<Int64?>(nil)
        let playedAt = engine.currentFrame
        _ = click.play { _ in ended.withLockedValue { $0 = engine.currentFrame } }
        wait("the one-shot's completion") { ended.withLockedValue { $0 } != nil }
        let late = ended.withLockedValue { $0 }! - (playedAt + 14_400)
        say(
            "idle frames=\(endFrame - startFrame) steps=\(endSteps - startSteps) update=\(engine.updateInterval) "
                + "late=\(late) \(scene.states)")
        engine.shutdown()
        say("done")
    case "snapshot":
        // A mix snapshot's half-second transition over a steady loop: the
        // update loop, which sleeps with nothing due, steps every period
        // until the transition ends, then sleeps again.
        let engine = try AudioEngine(output: .device())
        let loop = try SoundEffect(
            buffer: stereo(tone(440, seconds: 0.5, from: 0.2, to: 0.2)), name: "loop", engine: engine)
        loop.play(looping: .forever)
        wait("a quarter second of play") { engine.currentFrame >= 12_000 }
        let quiet = MixSnapshot(name: "quiet", buses: ["effects": .init(volume: 0.2)])
        let startFrame = engine.currentFrame
        let startSteps = engine.realTimeSteps
        let active = try engine.activate(quiet, over: MediaTime(seconds: 0.5))
        wait("the transition") { engine.currentFrame >= startFrame + 24_000 }
        let steps = engine.realTimeSteps - startSteps
        let afterFrame = engine.currentFrame
        let afterSteps = engine.realTimeSteps
        wait("half a second after it") { engine.currentFrame >= afterFrame + 24_000 }
        say(
            "snapshot frames=\(afterFrame - startFrame) steps=\(steps) update=\(engine.updateInterval) "
                + "after=\(engine.realTimeSteps - afterSteps) afterframes=\(engine.currentFrame - afterFrame)")
        try active.release()
        engine.shutdown()
        say("done")
    case "follow":
        // Both on the default sink, one of them by its name.
        let following = try AudioEngine(output: .device())
        let named = try AudioEngine(output: .device(name: following.deviceName))
        let scene = try Scene(engine: following, directory: directory)
        let stay = try Scene(engine: named, directory: directory, loopFrequency: 2_000)
        scene.waitForEngineTime(1, "one second of play")
        say(
            "playing following=\(following.deviceName ?? "none") named=\(named.deviceName ?? "none") "
                + "\(counts(following)) \(scene.positions)")
        wait("the test's word that the default changed") { commands.withLockedValue { $0.contains("switched") } }
        wait("the move to the new default") { events(scene.recorder, isChanged) > 0 }
        say("moved following=\(following.deviceName ?? "none") \(scene.positions) \(scene.states)")
        // Two more looks at the default: nothing moves again, and the named engine never moves.
        scene.waitForEngineTime(following.currentTime.seconds + 2.5, "2.5 s after the move")
        say(
            "after following=\(following.deviceName ?? "none") named=\(named.deviceName ?? "none") "
                + "changes=\(events(scene.recorder, isChanged)) namedChanges=\(events(stay.recorder, isChanged)) "
                + "lost=\(events(scene.recorder, isLost) + events(stay.recorder, isLost)) "
                + "\(counts(following)) \(scene.positions) \(scene.states)")
        wait("the test's word to finish") { commands.withLockedValue { $0.contains("finish") } }
        following.shutdown()
        named.shutdown()
        say("done")
    case "capture":
        let engine = try AudioEngine(output: .device())
        let sound = try SoundEffect(
            buffer: stereo(tone(1_000, seconds: 1, from: 0.5, to: 0.5)), name: "tone", engine: engine)
        let voice = sound.play(looping: .forever)
        wait("half a second of the tone") { engine.currentTime.seconds >= 0.5 }
        say("devices \(AudioCaptureDevice.available.map(\.name).joined(separator: ","))")
        say("default \(AudioCaptureDevice.default?.name ?? "none")")
        do {
            _ = try AudioCapture(device: AudioCaptureDevice(name: "no-such-source"))
            say("unknown opened")
        } catch let error as BackbeatError {
            say("unknown code=\(error.code.name.replacingOccurrences(of: " ", with: "_")) \(error)")
        }
        let monitor = AudioCaptureDevice(name: "Backbeat-Main.monitor")
        // Mono float at the sink's rate, stamped in engine time.
        let capture = try AudioCapture(
            device: monitor, format: AudioFormat(sampleRate: 48_000, channelCount: 1),
            bufferDuration: MediaTime(value: 20, timescale: 1_000), engine: engine)
        let bad = directory.appendingPathComponent("bad.wav")
        do {
            try await capture.record(to: bad, fileType: .wav, forDuration: .zero)
            say("badduration recorded")
        } catch let error as BackbeatError {
            let left = FileManager.default.fileExists(atPath: bad.path)
            say("badduration code=\(error.code.name.replacingOccurrences(of: " ", with: "_")) file=\(left)")
        }
        let times = LockedValueBox<[MediaTime]>([])
        let token = capture.observe { buffer in times.withLockedValue { $0.append(buffer.presentationTime) } }
        let before = engine.currentTime
        try await capture.record(
            to: directory.appendingPathComponent("capture.wav"), fileType: .wav, forDuration: MediaTime(seconds: 1))
        token.cancel()
        let stamps = times.withLockedValue { $0 }
        let steps = zip(stamps, stamps.dropFirst()).allSatisfy { $1 - $0 == MediaTime(value: 20, timescale: 1_000) }
        let level = capture.level
        say(
            "recorded device=\(capture.deviceName) frames=\(capture.framesCaptured) buffers=\(stamps.count) "
                + "before=\(seconds(before)) first=\(seconds(stamps.first ?? .zero)) steps=\(steps) "
                + "peak=\(level.peakPower) rms=\(level.averagePower) capturing=\(capture.isCapturing)")
        // Stereo 16-bit at another rate (the server converts).
        let stereoCapture = try AudioCapture(
            device: monitor, format: AudioFormat(sampleRate: 44_100, channelCount: 2, commonFormat: .int16),
            bufferDuration: MediaTime(value: 50, timescale: 1_000))
        try await stereoCapture.record(
            to: directory.appendingPathComponent("capture16.wav"), fileType: .wav,
            forDuration: MediaTime(value: 1, timescale: 2))
        say("recorded16 frames=\(stereoCapture.framesCaptured) buffer=\(stereoCapture.bufferFrameCount)")
        capture.close()
        stereoCapture.close()
        voice.stop()
        engine.shutdown()
        say("done")
    case "tone":
        let engine = try AudioEngine(output: .device())
        let sound = try SoundEffect(
            buffer: stereo(tone(1_000, seconds: 1, from: 0.5, to: 0.5)), name: "tone", engine: engine)
        let voice = sound.play(looping: .forever)
        wait("half a second of the tone") { engine.currentTime.seconds >= 0.5 }
        say("playing")
        wait("the test's word to stop", seconds: 120) { commands.withLockedValue { $0.contains("stop") } }
        voice.stop()
        engine.shutdown()
        say("done")
    case "replay":
        // A device session captured for `backbeat replay`: four distinct
        // percussive sounds from files (a decaying tone each, 500 Hz to
        // 3 kHz at four levels), played with play() at engine frames 0.3 s
        // apart, twice over; the capture is the file DIR/device.bbcap.
        let engine = try AudioEngine(output: .device())
        let capture = try engine.startCapture(to: directory.appendingPathComponent("device.bbcap"))
        let kinds: [(frequency: Double, level: Float)] = [(500, 0.6), (1_000, 0.3), (2_000, 0.45), (3_000, 0.2)]
        var sounds: [SoundEffect] = []
        for (index, kind) in kinds.enumerated() {
            var samples = [Float](repeating: 0, count: 9_600 * 2)
            for i in 0..<9_600 {
                let value =
                    kind.level
                    * Float(exp(-Double(i) / 2_400) * sin(2 * Double.pi * kind.frequency * Double(i) / 48_000))
                samples[2 * i] = value
                samples[2 * i + 1] = value
            }
            let url = directory.appendingPathComponent("hit\(index).wav")
            let writer = try SoundFileWriter(
                url: url, type: .wavFloat, sampleRate: 48_000, channelCount: 2, overwrite: true)
            try writer.write(samples[...])
            try writer.finish()
            let sound = SoundEffect(contentsOf: url, engine: engine)
            try await sound.preload()
            sounds.append(sound)
        }
        let rate = Int64(engine.sampleRate)
        let start = engine.currentFrame + rate / 4
        for hit in 0..<8 {
            let due = start + Int64(hit) * rate * 3 / 10
            wait("hit \(hit)") { engine.currentFrame >= due }
            sounds[hit % sounds.count].play()
        }
        let end = start + 8 * rate * 3 / 10 + rate / 2
        wait("the last hit's tail") { engine.currentFrame >= end }
        try capture.stop()
        say("replay update=\(engine.updateInterval) rate=\(rate)")
        engine.shutdown()
        say("done")
    case "nocapture":
        do {
            let capture = try AudioCapture()
            say("opened \(capture.deviceName)")
        } catch let error as BackbeatError {
            say("error code=\(error.code.name.replacingOccurrences(of: " ", with: "_")) \(error)")
        }
        say("done")
    default:
        say("unknown scene \(arguments[1])")
        exit(64)
    }
} catch {
    say("error \(error)")
    exit(1)
}
exit(0)
