import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a stream tells its player, from the engine's update step (under the
/// engine lock), in play order and each exactly once per entry.
enum StreamEvent {
    /// The entry's first frame (or its seek point) is being heard.
    case started(entry: UInt64, frameCount: Int64)
    /// The entry's last frame has been heard.
    case ended(entry: UInt64)
    /// The entry could not be opened or read (reported when its turn came).
    case failed(entry: UInt64, error: BackbeatError)
    /// The source ran dry before the decoder caught up; `total` counts them.
    case underrun(total: Int)
    /// Everything planned has played; the stream is idle.
    case drained
    /// The output device was replaced: the stream has a new source and empty
    /// buffers, and its owner restarts it at `position` (where it was heard).
    case deviceReplaced(position: (entry: UInt64, frame: Int64)?)
}

/// One music stream: one OpenAL source, a ring of OpenAL buffers (about a
/// third of a second in all), and a ``StreamFeed`` decoding ahead.
///
/// The engine's update step unqueues played buffers, refills them with decoded
/// chunks and queues them, so consecutive entries follow each other with no
/// gap. On `.offline` and fast `.file` outputs the step decodes a chunk itself
/// when the background decoder is behind (offline time is not real time), so
/// a render never underruns. On real-time outputs it never waits: a source that
/// ran dry is counted as an underrun and restarted as soon as data is queued.
final class AudioStream: EngineComponent {
    // Every member is touched only under the engine lock, except `feed`, which locks itself.

    static let bufferCount = 4

    weak var engine: AudioEngine?
    let feed: StreamFeed
    private var source: ALSource
    private var freeBuffers: [ALBufferName] = []
    private var allBuffers: [ALBufferName]
    /// The device `source` and `allBuffers` live on.
    private var objectsDevice: ALDevice
    /// Where the stream was heard when its device went away.
    private var positionAtLoss: (entry: UInt64, frame: Int64)?
    /// Offline outputs decode a late chunk in the update step; tests may turn it off to starve the stream.
    var decodesInline: Bool

    private struct Queued {
        let buffer: ALBufferName
        let frames: Int
        let levels: ChunkLevels
    }
    private var queued: [Queued] = []
    /// Frames of unqueued (played) buffers since the last reset.
    private var consumedFrames: Int64 = 0
    /// Frames queued since the last reset (the global position after the last queued frame).
    private var queuedEnd: Int64 = 0

    private enum Mark {
        case started(UInt64, entryFrame: Int64, frameCount: Int64)
        case ended(UInt64)
        case failed(UInt64, BackbeatError)
    }
    /// Entry boundaries at global frames, fired when playback reaches them.
    private var marks: [(at: Int64, mark: Mark)] = []
    /// The entry being heard: its id, the global frame it (re)started at, the entry frame there.
    private var heard: (entry: UInt64, global: Int64, entryFrame: Int64)?

    /// The engine frame at which the first frame queued after a restart is to
    /// be heard (``start(atFrame:)``); nil: as soon as it is queued.
    private(set) var scheduledStart: Int64?

    /// The player wants sound.
    private(set) var wantsPlay = false
    /// alSourcePlay was called and the source has not drained since.
    private var running = false
    /// 0...1 short ramp for pause/resume and seeks, so they never click.
    private var envelope: Float = 1
    private var pausing = false
    private(set) var underruns = 0

    /// The player's gain (volume times its fades) at a frame.
    var gain: (Int64) -> Float = { _ in 1 }
    /// Extra silence that does not stop time (the session's game-music mute).
    var isMuted = false
    /// The gain applied on the last update, for metering.
    private(set) var appliedPlayerGain: Float = 1
    /// The direct filter as last set on the source: the music bus's filter,
    /// lowered by its effect's wet/dry mix (nil: never set on it).
    private var appliedFilter: FilterGains?
    /// The music bus's effect send as last set on the source (send 1).
    private var appliedEffectSend: AuxiliarySend?
    /// Called under the engine lock, from the update step.
    var onEvent: (StreamEvent) -> Void = { _ in }

    /// Levels of buffers played since the meters were last read.
    private var meterPeak = SIMD2<Float>()
    private var meterSum = SIMD2<Float>()
    private var meterFrames = 0
    var isMeteringEnabled = false
    /// What a monitor reads (`takeTelemetryLevel()`), kept only while the
    /// engine monitors: buffers played since the last snapshot, as heard.
    private var telemetryLevel = (sumOfSquares: Double(0), peak: Float(0), samples: 0)
    /// The gain set on the source at the last update: the player's, the bus
    /// chain's, the pause ramp's, or 0 while muted.
    private var appliedSourceGain: Float = 1

    /// A stream on `engine`, made with the engine lock held.
    init(engine: AudioEngine) throws {
        self.engine = engine
        let rate = engine.sampleRate
        let chunk = max(256, rate / 12)  // ≈83 ms; four of them ≈ 333 ms queued
        feed = StreamFeed(sampleRate: rate, chunkFrames: chunk, readyLimit: 2)
        switch engine.output {
        case .offline, .file(_, _, .asFastAsPossible): decodesInline = true
        default: decodesInline = false
        }
        (source, allBuffers) = try Self.makeObjects(on: engine.device, sampleRate: rate)
        objectsDevice = engine.device
        freeBuffers = allBuffers
        engine.registerLocked(self)
    }

    /// One source and the ring of buffers, on `device`.
    private static func makeObjects(on device: ALDevice, sampleRate: Int) throws -> (ALSource, [ALBufferName]) {
        let name = try device.generateSource()
        let source = ALSource(name: name)
        var buffers: [ALBufferName] = []
        do {
            let silence = try PCMBuffer(format: AudioFormat(sampleRate: sampleRate, channelCount: 2), floats: [0, 0])
            for _ in 0..<bufferCount { buffers.append(try device.generateBuffer(silence)) }
            try device.withContext { source.reset() }
        } catch {
            for b in buffers { device.deleteBuffer(b) }
            device.deleteSource(name)
            throw error
        }
        return (source, buffers)
    }

    deinit { close() }

    /// Releases the source and buffers, at the engine's next entry: the
    /// player's last release, which closes it, may come with the lock held.
    /// Idempotent.
    func close() {
        feed.close()
        guard let engine else { return }
        let (source, buffers, device) = (source.name, allBuffers, objectsDevice)
        engine.performLocked { engine in
            // Names from a device since replaced would name another's objects on the new one.
            guard engine.device === device else { return }
            device.deleteSource(source)
            for buffer in buffers { device.deleteBuffer(buffer) }
        }
        self.engine = nil
    }

    // MARK: Control (under the engine lock)

    /// Drops everything queued and decoded and starts over with `entries`.
    /// With `rampIn`, the sound rises over a few milliseconds (a seek mid-song).
    func restart(with entries: [StreamEntry], rampIn: Bool) {
        if let engine {
            _ = try? engine.device.withContext {
                source.stop()
                source.unqueueProcessed(source.buffersProcessed) { _ in }
                source.rewind()
            }
        }
        freeBuffers = allBuffers
        queued.removeAll()
        consumedFrames = 0
        queuedEnd = 0
        marks.removeAll()
        heard = nil
        running = false
        drainedReported = false
        starved = false
        pausing = false
        scheduledStart = nil
        envelope = rampIn ? 0 : 1
        feed.reset(entries)
        feed.scheduleFill()
    }

    /// Replaces what follows the entry being heard; restarts at the current
    /// position when audio already decoded no longer fits.
    func setUpcoming(_ upcoming: [StreamEntry], current: StreamEntry) {
        if feed.setUpcoming(after: current.id, upcoming) {
            feed.scheduleFill()
            return
        }
        var entry = current
        entry.startFrame = position.map { $0.entry == current.id ? $0.frame : current.startFrame } ?? current.startFrame
        restart(with: [entry] + upcoming, rampIn: entry.startFrame > 0)
    }

    /// Plays what was restarted so that its first frame is heard on engine
    /// frame `frame`, exact to the sample: the source starts at the update step
    /// before, behind a lead-in of silence (the output's latency included, as
    /// ``SoundEffect`` does). A frame already past starts at once.
    func start(atFrame frame: Int64) {
        scheduledStart = frame
        wantsPlay = true
        pausing = false
    }

    /// Asks for sound (true) or a pause that keeps the position (false).
    func setPlaying(_ play: Bool) {
        guard play != wantsPlay else { return }
        wantsPlay = play
        if play {
            if pausing { pausing = false }
            if running { envelope = 0 }  // resuming mid-song: ramp in
        } else if running {
            pausing = true
        }
    }

    /// The entry being heard and the stream frame within it.
    var position: (entry: UInt64, frame: Int64)? {
        guard let heard else { return nil }
        let played = playedFrames()
        return (heard.entry, heard.entryFrame + max(0, played - heard.global))
    }

    /// Bytes of PCM this stream holds now: audio queued on its OpenAL source plus decoded chunks waiting.
    var bufferedBytes: Int {
        queued.reduce(0) { $0 + $1.frames } * StreamDecoder.channelCount * 4 + feed.bufferedBytes
    }

    /// The most PCM this stream can hold: its OpenAL buffers full plus the decoded chunks it may wait on.
    var capacityBytes: Int {
        (Self.bufferCount + feed.readyLimit) * feed.chunkFrames * StreamDecoder.channelCount * 4
    }

    /// Frames heard since the last restart: unqueued buffers plus the source's offset in the queue.
    private func playedFrames() -> Int64 {
        guard let engine, running else { return consumedFrames }
        return
            (try? engine.device.withContext { () -> Int64 in
                switch source.state {
                case .stopped: return queuedEnd
                case .initial: return consumedFrames
                case .playing, .paused: return consumedFrames + Int64(source.sampleOffset)
                }
            }) ?? consumedFrames
    }

    // MARK: Meters

    /// Takes the levels played since the last call (or the buffer being heard).
    func takeLevels() -> (peak: [Float], rms: [Float]) {
        var peak = meterPeak
        var sum = meterSum
        var frames = meterFrames
        if frames == 0, let head = queued.first {
            peak = head.levels.peak
            sum = head.levels.sumOfSquares
            frames = head.levels.frames
        }
        meterPeak = .zero
        meterSum = .zero
        meterFrames = 0
        guard frames > 0 else { return ([0, 0], [0, 0]) }
        let g = appliedPlayerGain
        let rms = (sum / Float(frames)).squareRoot() * g
        return ([peak[0] * g, peak[1] * g], [rms[0], rms[1]])
    }

    /// Adds a played buffer to what a monitor reads, at the gain it played at.
    private func keepTelemetryLevel(of levels: ChunkLevels) {
        let gain = appliedSourceGain
        telemetryLevel.sumOfSquares += Double(levels.sumOfSquares[0] + levels.sumOfSquares[1]) * Double(gain * gain)
        telemetryLevel.peak = max(telemetryLevel.peak, max(levels.peak[0], levels.peak[1]) * gain)
        telemetryLevel.samples += levels.frames * StreamDecoder.channelCount
    }

    /// Takes what the stream played since the last call, as heard: its mean
    /// square per sample (both channels) and its peak, after the player's
    /// gain, the bus chain and the pause ramp. With no buffer played since
    /// (a window shorter than one), the buffer playing now stands for it.
    func takeTelemetryLevel() -> (meanSquare: Double, peak: Double) {
        defer { telemetryLevel = (0, 0, 0) }
        if telemetryLevel.samples == 0, running, wantsPlay, let head = queued.first {
            keepTelemetryLevel(of: head.levels)
        }
        guard telemetryLevel.samples > 0 else { return (0, 0) }
        return (telemetryLevel.sumOfSquares / Double(telemetryLevel.samples), Double(telemetryLevel.peak))
    }

    // MARK: Update step

    /// Called first in every update step, under the engine lock (the player's own timing: seeking slices).
    var onUpdate: (Int64) -> Void = { _ in }
    /// The engine frame at which ``onUpdate`` next has work (nil: none until
    /// the game acts), asked after a step at the given frame, under the lock.
    var onUpdateDue: (Int64) -> Int64? = { _ in nil }

    /// The earliest engine frame at which this stream's update has work:
    /// the next queued buffer that may have finished (from the frames queued
    /// and the source's position), the next entry boundary to report, a
    /// scheduled start's lead-in, the player's own timing; every period while
    /// the gain moves, a pause or resume ramps, or the decoder is behind;
    /// nil when it is stopped or paused.
    func nextDueFrame(after frame: Int64) -> Int64? {
        guard let engine else { return nil }
        let interval = Int64(engine.updateInterval)
        var due = onUpdateDue(frame)
        func include(_ next: Int64) { due = min(due ?? next, next) }
        guard wantsPlay else {
            if running && pausing { return frame }
            return due
        }
        if let start = scheduledStart {
            // Its lead-in is queued on the step less than one period before it.
            include(start - engine.latencyFrames - 4 * interval)
            return due.map { max($0, frame) }
        }
        // Drained, with nothing more planned: nothing to do until the player acts.
        if queued.isEmpty, feed.isExhausted, marks.isEmpty, drainedReported { return due }
        // Moving: a ramp, a gain that changes over the next period, the decoder behind.
        if !running || starved || envelope < 1 || queued.isEmpty
            || (!freeBuffers.isEmpty && !feed.isExhausted)
            || gain(frame + 2 * interval) != appliedPlayerGain
        {
            return frame
        }
        let played = playedFrames()
        include(frame + max(0, consumedFrames + Int64(queued[0].frames) - played))
        if let mark = marks.first { include(frame + max(0, mark.at - played)) }
        return due
    }

    func update(at frame: Int64) throws {
        guard let engine else { return }
        onUpdate(frame)
        // 1. Played buffers come back. A source that ran dry is rewound, so
        //    buffers queued next count as unplayed.
        let ranDry = running && source.state == .stopped
        let processed = source.buffersProcessed
        if processed > 0 {
            source.unqueueProcessed(processed) { name in
                guard let i = queued.firstIndex(where: { $0.buffer == name }) else { return }
                let done = queued.remove(at: i)
                consumedFrames += Int64(done.frames)
                freeBuffers.append(name)
                if isMeteringEnabled {
                    meterPeak = pointwiseMax(meterPeak, done.levels.peak)
                    meterSum += done.levels.sumOfSquares
                    meterFrames += done.levels.frames
                }
                if engine.isMonitoringLocked { keepTelemetryLevel(of: done.levels) }
            }
        }
        if ranDry {
            source.rewind()
            running = false
            // It stopped with more to come: the decoder fell behind.
            starved = !feed.isExhausted
        }
        fireMarks()

        // 2. Pausing: ramp down, then pause the source.
        if !wantsPlay {
            if running && pausing {
                if envelope <= 0 {
                    source.pause()
                    pausing = false
                } else {
                    envelope = max(0, envelope - 0.5)
                }
            }
            applyGain(at: frame, engine: engine)
            return
        }

        // 3. A scheduled start waits for its step, then queues its lead-in of silence.
        if let start = scheduledStart {
            let lead = start - engine.latencyFrames - frame
            if lead >= Int64(engine.updateInterval) {
                applyGain(at: frame, engine: engine)
                if !decodesInline || feed.readyFrames == 0 { feed.scheduleFill() }
                return
            }
            scheduledStart = nil
            if lead > 0, queued.isEmpty { queueSilence(frames: Int(lead), engine: engine) }
        }

        // 4. Refill, then start or restart the source.
        fill()
        fireMarks()
        if queued.isEmpty {
            if feed.isExhausted, marks.isEmpty, !drainedReported {
                drainedReported = true
                onEvent(.drained)
            }
        } else {
            drainedReported = false
            if source.state != .playing {
                if starved {
                    starved = false
                    underruns += 1
                    engine.countUnderrunLocked()
                    engine.logUnderrunLocked(underruns)
                    onEvent(.underrun(total: underruns))
                }
                source.play()
                running = true
            }
        }
        applyGain(at: frame, engine: engine)
        if !decodesInline || feed.readyFrames == 0 { feed.scheduleFill() }
    }

    private var drainedReported = false
    /// The source ran dry while more audio was planned; the next start is an underrun's recovery.
    private var starved = false

    private func fill() {
        while !freeBuffers.isEmpty {
            guard let chunk = feed.take(decodeIfNeeded: decodesInline) else {
                if feed.isExhausted, let engine, onExhausted(engine) { continue }
                break
            }
            switch chunk {
            case .opened(let entry, let startFrame, let frameCount):
                marks.append((queuedEnd, .started(entry, entryFrame: startFrame, frameCount: frameCount)))
            case .ended(let entry):
                marks.append((queuedEnd, .ended(entry)))
            case .failed(let entry, let error):
                marks.append((queuedEnd, .failed(entry, error)))
            case .audio(_, let samples, let levels):
                let buffer = freeBuffers.removeFirst()
                guard let engine,
                    let pcm = try? PCMBuffer(
                        format: AudioFormat(sampleRate: feed.sampleRate, channelCount: 2), floats: samples),
                    (try? engine.device.upload(pcm, to: buffer)) != nil
                else {
                    freeBuffers.append(buffer)
                    continue
                }
                source.queue(buffer)
                queued.append(Queued(buffer: buffer, frames: levels.frames, levels: levels))
                queuedEnd += Int64(levels.frames)
            }
        }
    }

    /// Queues `frames` of silence ahead of the audio (a scheduled start's lead-in).
    private func queueSilence(frames: Int, engine: AudioEngine) {
        guard !freeBuffers.isEmpty else { return }
        let zeros = [Float](repeating: 0, count: frames * StreamDecoder.channelCount)
        let buffer = freeBuffers.removeFirst()
        guard
            let pcm = try? PCMBuffer(format: AudioFormat(sampleRate: feed.sampleRate, channelCount: 2), floats: zeros),
            (try? engine.device.upload(pcm, to: buffer)) != nil
        else {
            freeBuffers.append(buffer)
            return
        }
        source.queue(buffer)
        let levels = ChunkLevels(samples: zeros, channels: StreamDecoder.channelCount)
        queued.append(Queued(buffer: buffer, frames: frames, levels: levels))
        queuedEnd += Int64(frames)
    }

    /// The plan ran out: the player may append more (a wrap-around, a late insert).
    private var pendingExhaustion = false
    private func onExhausted(_ engine: AudioEngine) -> Bool {
        guard !pendingExhaustion else { return false }
        pendingExhaustion = true
        defer { pendingExhaustion = false }
        let before = feed.isExhausted
        onPlanExhausted()
        return before && !feed.isExhausted
    }

    /// Called when the decoder has nothing left to decode; the player may call ``setUpcoming(_:current:)``.
    var onPlanExhausted: () -> Void = {}

    private func fireMarks() {
        let played = playedFrames()
        while let first = marks.first, first.at <= played {
            marks.removeFirst()
            switch first.mark {
            case .started(let entry, let entryFrame, let frameCount):
                heard = (entry, first.at, entryFrame)
                onEvent(.started(entry: entry, frameCount: frameCount))
            case .ended(let entry):
                onEvent(.ended(entry: entry))
            case .failed(let entry, let error):
                engine?.logSkippedLocked(error)
                onEvent(.failed(entry: entry, error: error))
            }
        }
    }

    private func applyGain(at frame: Int64, engine: AudioEngine) {
        if wantsPlay && envelope < 1 && running { envelope = min(1, envelope + 0.5) }
        // The gain for the end of the coming period: OpenAL ramps toward it, so a
        // fade lands on its target on time instead of one period late.
        let player = gain(frame + Int64(engine.updateInterval))
        appliedPlayerGain = player
        let bus = engine.musicBus.isEffectivelyPaused ? 0 : engine.musicBus.effectiveGain(at: frame)
        appliedSourceGain = isMuted ? 0 : player * bus * envelope
        source.setGain(appliedSourceGain)
        // The music bus's filter, and its effect as voices take a bus effect:
        // `wet` through send 1 to the effect's slot, `1 - wet` left direct.
        // A device that grants one send keeps it for the reverb, which music
        // never feeds, and the effect is skipped.
        let (send, direct) = AuxiliarySend.busEffect(
            engine.musicBus.stepEffect, of: engine.musicBus.stepFilter, on: engine.device)
        send.apply(1, of: source, on: engine.device, over: &appliedEffectSend)
        if direct != appliedFilter ?? .open {
            engine.device.setDirectFilter(direct.alParameters, on: source)
            appliedFilter = direct
        }
    }
}

extension AudioStream {
    func deviceWillBeReplaced(readPositions: Bool) {
        guard let heard else {
            positionAtLoss = nil
            return
        }
        // A real disconnect has already stopped the source: count only whole
        // buffers heard (at most one buffer, ~83 ms, behind).
        positionAtLoss =
            readPositions ? position : (heard.entry, heard.entryFrame + max(0, consumedFrames - heard.global))
    }

    func deviceWasReplaced() throws {
        guard let engine else { return }
        // The old source and buffers went with the old device.
        (source, allBuffers) = try Self.makeObjects(on: engine.device, sampleRate: engine.sampleRate)
        objectsDevice = engine.device
        appliedFilter = nil
        appliedEffectSend = nil
        restart(with: [], rampIn: false)
        onEvent(.deviceReplaced(position: positionAtLoss))
        positionAtLoss = nil
    }
}
