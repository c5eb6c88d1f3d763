#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import BackbeatSupport
import BackbeatOpenAL
import BackbeatMedia
import BackbeatSession

/// The audio engine: one OpenAL device and context, one clock, one update loop.
///
/// An engine renders to one of three outputs: the system's device in real time,
/// memory (`.offline`), or a WAV file (`.file`). Everything above the engine —
/// voices, buses, players, the session — behaves identically on all three.
///
/// Engine time is the only clock. It counts frames rendered (or, on a device,
/// frames the device has played), and every fade, queue advance and completion
/// is scheduled on it. In `.offline` and fast `.file` output, time moves only
/// when you call ``render(frames:)`` or ``advance(by:)``, so tests are exact.
///
/// ```swift
/// let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
/// let samples = try engine.render(frames: 4_800)   // 100 ms, interleaved Float32
/// engine.shutdown()
/// ```
///
/// ## Locking
///
/// One lock, `lock`, guards all of an engine's state and every OpenAL call on
/// its device; the device has no lock of its own. The lock is not recursive.
/// A public entry point takes it once (`withLock`); code that runs under it
/// calls the `…Locked` paths, which assume it is held and never take it
/// again. Handlers, completions and session callbacks run after it is
/// released (`deliverPendingEvents`), and work that must happen under it but
/// may start anywhere, deinitialisers included, is queued with
/// `performLocked(_:)` and run at the next entry.
public final class AudioEngine: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock`, which also
    // serialises every OpenAL call and lets a lost device be replaced safely.

    /// The output this engine was opened on.
    public let output: Output
    /// Output frames per second.
    public let sampleRate: Int
    /// Output channels (interleaved in rendered samples).
    public let channelCount: Int
    /// Frames between two update steps: about 5 ms. Fades, refills and
    /// completion checks happen on these boundaries.
    public let updateInterval: Int

    /// The fixed delay between mixing a frame and its appearance in the
    /// output: OpenAL Soft's output limiter looks 1 ms ahead. Scheduled
    /// starts (`play(at:)`) compensate for it.
    public let outputLatency: MediaTime
    package let latencyFrames: Int64

    package let lock = Lock()
    /// Work queued by `performLocked(_:)`, run at the next entry under `lock`.
    private let lockedWork = LockedValueBox<[@Sendable (AudioEngine) -> Void]>([])
    /// The OpenAL device; replaced when the output is lost (see `AudioEngine+DeviceLoss`).
    package var device: ALDevice
    private var fileWriter: SoundFileWriter?
    var framesRendered: Int64 = 0
    var nextUpdateFrame: Int64 = 0
    /// Whether a render steps only at the update periods that have work (on
    /// by default). Off, it steps and calls OpenAL every period, as it used
    /// to: the tests render both ways and compare.
    package var skipsIdleSteps = true
    /// The game changed something since the last update step (a public entry
    /// point took the lock): the next period boundary steps.
    var stepRequested = true
    /// Asked after the last update step: the earliest frame at which a step
    /// has work (at or before the step's own frame: the next period; nil:
    /// none until the game changes something).
    private var nextStepDue: Int64? = 0
    /// Something OpenAL Soft ramps (a gain, a placement, a filter) changed
    /// since its last mix call: the next call ends at the next period boundary.
    private var rampPending = false
    /// ``ALRampedWrites/count`` on this thread when the lock was taken or OpenAL last mixed.
    private var rampWritesSeen: UInt = 0
    /// Update steps run and OpenAL mix calls made by renders so far (for tests and the benchmarks).
    package private(set) var renderCounts = (steps: 0, mixes: 0)
    var components: [WeakComponent] = []
    private var isShutDown = false
    private var scratch: [Float] = []
    private var realTimeThread: JoinableThread?
    private var realTimeStopping = false
    /// Whether the update loop sleeps until work is due (a `.device` output), so changes must wake it.
    private var wakesUpdateLoop = false
    /// Batches (`performBatchUpdates`) under way: while any is, OpenAL holds every change back.
    package var openBatches = 0
    /// The real-time thread's progress and stop request: it wakes for a stop,
    /// and the shutdown fade waits on its progress.
    private let realTime = ConditionLock(RealTimeProgress())
    /// Observers of each update step's start, called without the lock.
    var stepObservers: [WeakStepObserver] = []
    var clockOrigin: Int64 = 0
    /// Engine frames already counted when the current device's clock started.
    var clockBaseFrame: Int64 = 0
    /// The first error an update step hit on a real-time thread, reported by the next call.
    private var deferredError: BackbeatError?
    /// Work a device replacement left to do outside the lock (decoding the
    /// cached sounds again), taken by the thread that handled the loss.
    var recoveryWork: [@Sendable () -> Void] = []
    /// Where a real-time output runs `recoveryWork`, off its update thread.
    let recoveryQueue = DispatchQueue(label: "Backbeat device recovery", qos: .userInitiated)
    /// What the device watch (a `.device` engine's reopening and following
    /// of the default output, see `AudioEngine+DeviceLoss`) is asked to do.
    let watch = ConditionLock(DeviceWatchState())

    /// The bus every other bus feeds.
    public let masterBus: Bus
    /// The bus music players play on.
    public let musicBus: Bus
    /// The bus sound effects play on unless told otherwise.
    public let effectsBus: Bus
    /// Every bus, parents before children.
    var buses: [Bus]
    /// How this engine's audio shares the machine: category, options, and the
    /// environment's events. Its decisions are applied to this engine's buses
    /// and players.
    public let session: AudioSession
    let sessionTarget: EngineSessionTarget
    /// The effects layer's state on this engine (BackbeatEffects'
    /// `EffectsState`, which this module cannot name): made by that layer on
    /// first use and held for the engine's life; the engine never looks
    /// inside. Read and written only under the lock.
    package var effectsState: AnyObject?
    /// The cap on voices the effects layer's pool may make audible (nil: what the device grants).
    package let maximumVoices: Int?
    /// Whether a bus's gain or pause changed in the current update step.
    package private(set) var busesChangedThisStep = false
    var pendingEvents: [PendingDelivery] = []
    /// The array ``pendingEvents`` last gave to delivery, emptied with its capacity kept.
    var spareEventBatch: [PendingDelivery] = []
    /// The engine's observers and event streams (each stream keeps the newest 4,096 unread events).
    let eventBroadcast = EventBroadcast<PlaybackEvent>(bufferLimit: 4_096)
    /// Where a real-time output delivers events and callbacks, off its audio
    /// thread; nil for offline and fast-file outputs, which deliver on the
    /// thread that called render or advance.
    var eventDelivery: EventDeliveryQueue?
    /// Music players, for the session and the shutdown fade (see `AudioEngine+MusicShutdown.swift`).
    var musicPlayers: [WeakMusicPlayer] = []
    var shutdownFadeStorage = MediaTime(seconds: 1)

    /// Opens an engine on `output`.
    ///
    /// - Throws: ``BackbeatError`` with ``BackbeatError/Code/deviceUnavailable``
    ///   when the device cannot be opened (it names the device and OpenAL's
    ///   reason), ``BackbeatError/Code/invalidArgument`` for a sample rate or
    ///   channel count out of range, ``BackbeatError/Code/writeFailed`` when a
    ///   `.file` output cannot be created.
    /// - Parameters:
    ///   - output: where the sound goes.
    ///   - maximumVoices: caps the sources the voice pool takes from the
    ///     device (nil: all it grants, less a reserve for music streams).
    public init(output: Output, maximumVoices: Int? = nil) throws {
        self.output = output
        self.maximumVoices = maximumVoices
        switch output {
        case .device(let name, let latency):
            latency.prepareOpenAL()
            device = try ALDevice.openPlayback(name: name)
        case .offline(let rate, let channels):
            try Self.validate(sampleRate: rate, channels: channels)
            OutputLatency.default.prepareOpenAL()
            device = try ALDevice.openLoopback(sampleRate: rate, channels: channels)
        case .file(let url, let rate, _):
            try Self.validate(sampleRate: rate, channels: 2)
            OutputLatency.default.prepareOpenAL()
            let device = try ALDevice.openLoopback(sampleRate: rate, channels: 2)
            self.fileWriter = try SoundFileWriter(
                url: url, type: .wavFloat, sampleRate: rate, channelCount: 2, overwrite: true)
            self.device = device
        }
        sampleRate = device.sampleRate
        channelCount = device.channelCount
        updateInterval = max(64, sampleRate / 200)
        let fixedLatency = device.isLoopback ? (device.latencyNanoseconds() ?? 0) : 0
        latencyFrames = Int64((Double(fixedLatency) * Double(device.sampleRate) / 1e9).rounded(.down))
        outputLatency = MediaTime(frames: latencyFrames, sampleRate: device.sampleRate)
        masterBus = Bus(name: "master", parent: nil)
        musicBus = Bus(name: "music", parent: masterBus)
        effectsBus = Bus(name: "effects", parent: masterBus)
        buses = [masterBus, musicBus, effectsBus]
        let clock = EngineClock()
        session = AudioSession(clock: { clock.now })
        sessionTarget = EngineSessionTarget(engine: nil)
        for bus in buses { bus.engine = self }
        clock.engine = self
        sessionTarget.engine = self
        session.attach(target: sessionTarget)
        if case .device = output {
            eventDelivery = EventDeliveryQueue(name: "Backbeat events")
            deliverSessionUpdatesOffTheAudioThread()
            clockOrigin = device.clockNanoseconds() ?? 0
            wakesUpdateLoop = true
            startRealTimeThread(rendering: false)
            if case .device(let name, _) = output { startDeviceWatch(requestedName: name) }
        } else if case .file(_, _, .realTime) = output {
            eventDelivery = EventDeliveryQueue(name: "Backbeat events")
            deliverSessionUpdatesOffTheAudioThread()
            startRealTimeThread(rendering: true)
        }
    }

    deinit { shutdown() }

    private static func validate(sampleRate: Int, channels: Int) throws {
        guard sampleRate > 0 else {
            throw BackbeatError(
                .invalidArgument, operation: "AudioEngine.init",
                reason: "sample rate must be positive, got \(sampleRate)")
        }
        guard (8_000...384_000).contains(sampleRate) else {
            throw BackbeatError(
                .unsupportedFormat, operation: "AudioEngine.init",
                reason: "sample rate \(sampleRate) Hz (8000...384000)")
        }
        guard [1, 2, 4, 6].contains(channels) else {
            throw BackbeatError(
                .unsupportedFormat, operation: "AudioEngine.init", reason: "\(channels) channels (1, 2, 4 or 6)")
        }
    }

    // MARK: Time

    /// Engine time: frames rendered (or played, on a device) since the engine opened.
    public var currentTime: MediaTime {
        MediaTime(frames: currentFrame, sampleRate: sampleRate)
    }

    /// Engine time in frames.
    package var currentFrame: Int64 { withLock(waking: false) { currentFrameLocked } }

    /// Engine time in frames, with the lock held.
    package var currentFrameLocked: Int64 {
        guard !device.isLoopback else { return framesRendered }
        let ns = (device.clockNanoseconds() ?? clockOrigin) - clockOrigin
        return clockBaseFrame + Int64((Double(ns) * Double(sampleRate) / 1e9).rounded(.down))
    }

    /// Engine time in frames and the output latency (ns), read together
    /// from the device: the frame is heard that much later. Nil off a real device.
    package var frameAndOutputLatency: (frame: Int64, latencyNanoseconds: Int64)? {
        withLock {
            guard let reading = device.clockAndLatencyNanoseconds(),
                let frame = frameLocked(atDeviceClock: reading.clock)
            else { return nil }
            return (frame, reading.latency)
        }
    }

    /// The engine frame a reading of the device clock (ns) stands for, as
    /// ``currentFrameLocked`` counts; nil on a loopback device.
    package func frameLocked(atDeviceClock nanoseconds: Int64) -> Int64? {
        guard !device.isLoopback else { return nil }
        return clockBaseFrame + Int64((Double(nanoseconds - clockOrigin) * Double(sampleRate) / 1e9).rounded(.down))
    }

    // MARK: Rendering

    /// Renders `frames` frames and returns them as interleaved Float32.
    ///
    /// Update steps run on their fixed boundaries inside the span, so the
    /// result does not depend on how rendering is split into calls.
    /// On a `.file` output the frames are also written to the file.
    ///
    /// - Throws: ``BackbeatError/Code/invalidArgument`` when `frames` is zero
    ///   or negative, ``BackbeatError/Code/wrongOutput`` on a device or paced
    ///   file output, ``BackbeatError/Code/engineShutDown`` after shutdown.
    public func render(frames: Int) throws -> [Float] {
        var samples = [Float](repeating: 0, count: max(0, frames) * channelCount)
        try render(frames: frames, into: &samples)
        return samples
    }

    /// Renders `duration` of engine time, discarding the samples (a `.file`
    /// output still writes them). Use it to move time forward cheaply.
    public func advance(by duration: MediaTime) throws {
        let frames = duration.frames(atSampleRate: sampleRate, rounding: .nearest)
        guard frames > 0 else { return }
        defer { deliverPendingEvents() }
        try renderDiscarding(frames: frames) { try render(frames: $0, into: &$1) }
    }

    /// Renders `frames` in chunks into a scratch buffer, through `renderChunk`.
    private func renderDiscarding(frames: Int64, through renderChunk: (Int, inout [Float]) throws -> Void) throws {
        var remaining = frames
        while remaining > 0 {
            let chunk = Int(min(remaining, 8_192))
            if scratch.count < chunk * channelCount { scratch = [Float](repeating: 0, count: chunk * channelCount) }
            try renderChunk(chunk, &scratch)
            remaining -= Int64(chunk)
        }
    }

    /// Renders into `samples`, which must hold `frames * channelCount` floats.
    func render(frames: Int, into samples: inout [Float]) throws {
        guard frames > 0 else {
            throw BackbeatError(
                .invalidArgument, operation: "render(frames:)", reason: "frames must be positive, got \(frames)")
        }
        try withLock(waking: false) {
            try checkUsable("render(frames:)")
            switch output {
            case .device, .file(_, _, .realTime):
                throw BackbeatError(
                    .wrongOutput, operation: "render(frames:)", reason: "this output renders on its own in real time")
            case .offline, .file:
                break
            }
        }
        try renderSteps(frames: frames, into: &samples)
    }

    /// Renders `frames` frames, stepping out of the lock before each update
    /// step the step observers have not seen, so they can post to the session.
    /// Splitting a render this way changes nothing in the result, as splitting
    /// it into calls changes nothing.
    private func renderSteps(frames: Int, into samples: inout [Float]) throws {
        defer { deliverPendingEvents() }
        var done = 0
        var observedStep: Int64?
        while done < frames {
            let (rendered, waitingStep) = try withLock(waking: false) { () -> (Int, Int64?) in
                try checkUsable("render(frames:)")
                let rendered = try renderLocked(
                    frames: frames - done, into: &samples, at: done, observedStep: observedStep)
                return (rendered, done + rendered < frames ? framesRendered : nil)
            }
            done += rendered
            if let waitingStep {
                notifyStepObservers(at: waitingStep)
                observedStep = waitingStep
            }
        }
    }

    /// The render loop: update steps on absolute boundaries, OpenAL mixing
    /// between them, into `samples` from frame `offset`. Stops before a step
    /// whose start the step observers have not seen (`observedStep`); returns
    /// the frames rendered.
    ///
    /// A period with nothing due is not stepped (the step would change
    /// nothing), and OpenAL mixes such periods in one call: from a period
    /// boundary to the next one with work, unless something OpenAL ramps
    /// changed since its last call. Then the call ends at the next boundary,
    /// so the change lands within one period, as when every period is its
    /// own call. Either way the samples are the same.
    private func renderLocked(
        frames: Int, into samples: inout [Float], at offset: Int = 0,
        observedStep: Int64? = nil
    ) throws -> Int {
        var done = 0
        let interval = Int64(updateInterval)
        while done < frames {
            if framesRendered == nextUpdateFrame {
                if !stepObservers.isEmpty, observedStep != framesRendered { break }
                if !skipsIdleSteps || stepRequested || (nextStepDue.map { $0 <= framesRendered } ?? false) {
                    stepRequested = false
                    try runUpdate(at: framesRendered)
                    renderCounts.steps += 1
                    nextStepDue = skipsIdleSteps ? nextStepFrameLocked(after: framesRendered) : framesRendered
                }
                nextUpdateFrame += interval
            }
            if ALRampedWrites.count != rampWritesSeen { rampPending = true }
            if skipsIdleSteps, !rampPending, !stepRequested {
                // Mixes on through the boundaries before the next one with work.
                let end = min(nextStepDue ?? .max, framesRendered + Int64(frames - done))
                while nextUpdateFrame < end { nextUpdateFrame += interval }
            }
            let chunk = min(frames - done, Int(nextUpdateFrame - framesRendered))
            device.render(frames: chunk, into: &samples, at: (offset + done) * channelCount)
            rampPending = false
            rampWritesSeen = ALRampedWrites.count
            renderCounts.mixes += 1
            done += chunk
            framesRendered += Int64(chunk)
        }
        if done > 0 { try fileWriter?.write(samples[(offset * channelCount)..<((offset + done) * channelCount)]) }
        return done
    }

    // MARK: Update step

    /// Adds a component to the update loop, after the others.
    package func register(_ component: any EngineComponent) {
        withLock { registerLocked(component) }
    }

    /// ``register(_:)`` with the lock held; `first` puts the component before
    /// the others (the voice pool: its voices see this step's bus gains
    /// before anything else the step changes).
    package func registerLocked(_ component: any EngineComponent, first: Bool = false) {
        components.insert(WeakComponent(component: component), at: first ? 0 : components.count)
    }

    /// Adds an observer that sees every update step begin, without the lock
    /// (a scripted environment: it posts to the session, whose decisions take
    /// the lock). The engine holds it weakly.
    package func addStepObserver(_ observer: any EngineStepObserver) {
        withLock { stepObservers.append(WeakStepObserver(observer: observer)) }
    }

    /// Tells the step observers that the step at `frame` begins (without the lock).
    private func notifyStepObservers(at frame: Int64) {
        let observers = withLock { () -> [any EngineStepObserver] in
            stepObservers.removeAll { $0.observer == nil }
            return stepObservers.compactMap(\.observer)
        }
        for observer in observers { observer.engineWillStep(at: frame) }
    }

    private func runUpdate(at frame: Int64) throws {
        // A loopback device mixes only inside render, after this step, so its
        // changes land together anyway; a real device mixes on its own thread,
        // so its changes are deferred and applied at once.
        // Inside a game's batch (`performBatchUpdates`) the changes are already
        // held back, and the batch's end applies them with the game's.
        if device.isLoopback || openBatches > 0 {
            try device.withContext("update") { try updateComponents(at: frame) }
        } else {
            try device.batch { try updateComponents(at: frame) }
        }
    }

    private func updateComponents(at frame: Int64) throws {
        updateBuses(at: frame)
        var index = 0
        while index < components.count {
            if let component = components[index].component {
                try component.update(at: frame)
                index += 1
            } else {
                components.remove(at: index)
            }
        }
    }

    /// Advances bus fades and ducks, then computes each bus's gain and pause
    /// once for the step, for every voice to read.
    private func updateBuses(at frame: Int64) {
        for bus in buses {
            if let completion = bus.update(at: frame) {
                postLocked(.fadeCompleted(bus: bus.name))
                postLocked(callback: completion)
            }
        }
        var changed = false
        for bus in buses { bus.stepEffectSlot(at: frame, device: device) }
        for bus in buses {
            let effect = bus.effectiveEffect(at: frame)
            if effect?.slot != bus.stepEffect?.slot || effect?.wet != bus.stepEffect?.wet { changed = true }
            bus.stepEffect = effect
            let gain = bus.effectiveGain(at: frame), paused = bus.isEffectivelyPaused
            let filter = bus.effectiveFilter(at: frame)
            if gain != bus.stepGain || paused != bus.stepPaused || filter != bus.stepFilter { changed = true }
            bus.stepGain = gain
            bus.stepPaused = paused
            bus.stepFilter = filter
        }
        busesChangedThisStep = changed
    }

    // MARK: Real-time outputs

    /// What the real-time thread reports and is told, behind `realTime`.
    struct RealTimeProgress {
        /// Engine time as of the thread's last step.
        var frame: Int64 = 0
        /// Steps the thread has taken (each one a wakeup).
        var steps = 0
        /// Shutdown asked the thread to end.
        var stopRequested = false
        /// The game changed something since the thread's last step: a device's
        /// update loop looks again at what is due.
        var wakeRequested = false
    }

    /// The longest a device's update loop sleeps with nothing due: it reads
    /// the device's connection state (ALC_EXT_disconnect) at least this
    /// often, 10 times a second. Following the default output does not
    /// depend on it (the device watch hears the sound server's own events).
    /// Every wakeup costs CPU: at 50 ms, the poll doubled the wakeups of a
    /// scene whose only work was a music stream's refills (every 83 ms).
    static let devicePollNanoseconds: UInt64 = 100_000_000

    private func startRealTimeThread(rendering: Bool) {
        let period = UInt64(Double(updateInterval) / Double(sampleRate) * 1e9)
        let samplesPerStep = updateInterval * channelCount
        let realTime = self.realTime
        // The thread holds the engine only during a step, so dropping the last
        // reference shuts the engine down; if that happens on this thread,
        // shutdown detaches it instead of joining it.
        let thread = JoinableThread(name: "Backbeat engine") { [weak self] in
            var start = MonotonicClock.now()
            var steps: UInt64 = 0
            var lastStep = start
            var buffer = [Float](repeating: 0, count: samplesPerStep)
            loop: while let next = Self.realTimeStep(of: self, rendering: rendering, buffer: &buffer) {
                switch next {
                case .paced:
                    // Rendering (a paced file, or a lost device's silent stand-in):
                    // one update period per step, on a fixed schedule.
                    steps += 1
                    if realTime.wait(until: start + steps * period, for: \.stopRequested) { break loop }
                case .due(let nanoseconds):
                    // A device: sleeps until the next thing is due, or until the
                    // game changes something (then out the rest of the period:
                    // it never steps twice within one), or until shutdown.
                    let earliest = lastStep + period
                    let deadline = max(MonotonicClock.now() + nanoseconds, earliest)
                    if realTime.wait(until: deadline, for: { $0.stopRequested || $0.wakeRequested }),
                        realTime.wait(until: earliest, for: \.stopRequested)
                    {
                        break loop
                    }
                    lastStep = MonotonicClock.now()
                    // Should the device be lost, pacing starts from here.
                    start = lastStep
                    steps = 0
                }
            }
            ALDevice.clearThreadContext()
        }
        // Known before the thread runs, so it can tell it is itself.
        realTimeThread = thread
        thread.start()
    }

    /// One step of a real-time output, on its thread: the step observers; under
    /// the lock, an update step when the device clock has reached the next
    /// boundary, or (for a paced file) one rendered update period; then the
    /// events the step queued. Behaviour reads only engine time; the wall clock
    /// only decides when the thread wakes. Returns false once the engine is
    /// gone or stopping.
    private static func realTimeStep(of engine: AudioEngine?, rendering: Bool, buffer: inout [Float])
        -> RealTimeWait?
    {
        guard let engine else { return nil }
        // Changes the game makes from here on wake the thread again.
        engine.realTime.update { progress in
            progress.wakeRequested = false
            return false
        }
        let due = engine.withLock { () -> Int64? in
            guard engine.realTimeRunningLocked else { return nil }
            return rendering || engine.device.isLoopback ? engine.framesRendered : engine.currentFrameLocked
        }
        guard let due else { return nil }
        engine.notifyStepObservers(at: due)
        let frame = engine.withLock { () -> (Int64, [@Sendable () -> Void], RealTimeWait)? in
            guard engine.realTimeRunningLocked else { return nil }
            do {
                if !engine.device.isLoopback, !engine.device.isConnected {
                    engine.handleDisconnectLocked()
                }
                if rendering || engine.device.isLoopback {
                    _ = try engine.renderLocked(frames: engine.updateInterval, into: &buffer, observedStep: due)
                } else {
                    let frame = engine.currentFrameLocked
                    if frame >= engine.nextUpdateFrame {
                        try engine.runUpdate(at: frame)
                        engine.nextUpdateFrame = frame + Int64(engine.updateInterval)
                    }
                }
            } catch let error as BackbeatError {
                if engine.deferredError == nil { engine.deferredError = error }
            } catch {}
            let frame = engine.currentFrameLocked
            let wait: RealTimeWait =
                rendering || engine.device.isLoopback ? .paced : .due(engine.sleepNanosecondsLocked(at: frame))
            return (frame, engine.takeRecoveryWorkLocked(), wait)
        }
        guard let (frame, recovery, wait) = frame else { return nil }
        // A replacement's decoding is not for this thread: updates go on meanwhile.
        engine.runRecoveryWork(recovery)
        engine.deliverPendingEvents()
        engine.realTime.withLockedValue {
            $0.frame = frame
            $0.steps += 1
        }
        return wait
    }

    /// How a real-time thread waits after a step.
    enum RealTimeWait {
        /// One update period, on the fixed schedule (the thread renders).
        case paced
        /// Until the next thing is due, this many nanoseconds from now, or
        /// until the game changes something (a device: OpenAL mixes on its own).
        case due(UInt64)
    }

    /// How long a device's update loop may sleep after a step at `frame`:
    /// until the earliest frame a bus or component has work due (never
    /// before the next update period), and at most ``devicePollNanoseconds``.
    private func sleepNanosecondsLocked(at frame: Int64) -> UInt64 {
        let due = max(nextUpdateFrame, nextDueFrameLocked(after: frame) ?? Int64.max)
        let poll = Self.devicePollNanoseconds
        guard due < Int64.max, due > frame else { return due == Int64.max ? poll : 0 }
        let frames = Double(due - frame)
        return min(poll, UInt64(frames / Double(sampleRate) * 1e9))
    }

    /// The earliest engine frame after a step at `frame` at which an update
    /// step would change anything (what is mixed, reported or posted): a
    /// render skips the periods before it. Unlike ``nextDueFrameLocked(after:)``
    /// (a device's wakeup, which may come early), never late.
    func nextStepFrameLocked(after frame: Int64) -> Int64? {
        earliestFrameLocked(after: frame) { $0.nextStepFrame(after: frame) }
    }

    /// The earliest engine frame after a step at `frame` at which a bus
    /// (a fade, duck, filter or effect glide under way), a step observer or a
    /// component has work due; nil when nothing is due until the game
    /// changes something.
    package func nextDueFrameLocked(after frame: Int64) -> Int64? {
        earliestFrameLocked(after: frame) { $0.nextDueFrame(after: frame) }
    }

    /// `frame` while a step observer listens or a bus moves; otherwise the
    /// earliest of the components' answers (nil: none).
    private func earliestFrameLocked(after frame: Int64, _ ask: (any EngineComponent) -> Int64?) -> Int64? {
        if !stepObservers.isEmpty { return frame }
        for bus in buses where bus.isChangingLocked(at: frame) { return frame }
        var due: Int64?
        for entry in components {
            guard let component = entry.component, let next = ask(component) else { continue }
            if next <= frame { return frame }
            due = min(due ?? next, next)
        }
        return due
    }

    /// Wakes a device's update loop to look again at what is due: the game
    /// changed something (a public entry point took the lock). Calls from
    /// the loop's own thread do not wake it.
    private func wakeUpdateLoopLocked() {
        guard let thread = realTimeThread, !thread.isCurrent else { return }
        realTime.update { progress in
            guard !progress.wakeRequested else { return false }
            progress.wakeRequested = true
            return true
        }
    }

    /// Whether the real-time thread should go on.
    private var realTimeRunningLocked: Bool { !isShutDown && !realTimeStopping }

    /// Ends the real-time thread: joins it, or, on the thread itself (a
    /// handler or the last release that shuts the engine down), lets it end
    /// on its own after this step, since a thread cannot join itself.
    private func stopRealTimeThread() {
        let thread = withLock { () -> JoinableThread? in
            realTimeStopping = true
            return realTimeThread
        }
        guard let thread else { return }
        realTime.withLockedValue { $0.stopRequested = true }
        thread.joinUnlessCurrent()
    }

    /// Renders `frames` on the calling thread, whatever the output: a paced
    /// file's shutdown fade, rendered by its own thread (which is not in a step).
    func renderOnRealTimeThread(frames: Int64) throws {
        try renderDiscarding(frames: frames) { try renderSteps(frames: $0, into: &$1) }
    }

    /// Steps a real-time output's thread has taken since the engine opened:
    /// each is one wakeup (zero on other outputs).
    package var realTimeSteps: Int { realTime.withLockedValue { $0.steps } }

    /// Whether the caller is this engine's real-time thread.
    var isOnRealTimeThread: Bool { withLock(waking: false) { realTimeThread?.isCurrent ?? false } }

    /// Waits until the real-time thread has taken engine time to `frame`, or
    /// until `seconds` of wall time pass. The wall clock only bounds the wait;
    /// engine time decides when it is over.
    func waitForRealTime(toReach frame: Int64, atMost seconds: Double) {
        let giveUp = MonotonicClock.now() + UInt64(max(0, seconds) * 1e9)
        _ = realTime.wait(until: giveUp) { $0.frame >= frame || $0.stopRequested }
    }

    // MARK: Shutdown

    /// Fades the music players out (``shutdownFadeDuration``), then stops every
    /// sound, releases every OpenAL source, buffer, context and device, and
    /// completes a `.file` output. Idempotent. Any use of the
    /// engine afterwards throws ``BackbeatError/Code/engineShutDown``.
    ///
    /// Call it from any thread, the engine's own included (an event handler,
    /// a voice's completion, the last release of the engine there).
    public func shutdown() {
        fadeOutMusicBeforeShutdown()
        stopRealTimeThread()
        stopDeviceWatch()
        withLock {
            guard !isShutDown else { return }
            isShutDown = true
            for component in components.compactMap(\.component) { component.engineWillShutDown() }
            components.removeAll()
            device.close()
            do { try fileWriter?.finish() } catch let error as BackbeatError { deferredError = error } catch {}
            fileWriter = nil
        }
        deliverPendingEvents()
        // Streams end after the last event; a real-time output's delivery
        // thread ends on its own once it has delivered everything.
        let broadcast = eventBroadcast
        if let delivery = withLock({ eventDelivery }) {
            delivery.stop { broadcast.finish() }
        } else {
            broadcast.finish()
        }
    }

    /// Whether ``shutdown()`` has not run yet.
    public var isRunning: Bool { withLock { !isShutDown } }
    package var isRunningLocked: Bool { !isShutDown }

    // MARK: Locking

    /// Traps, in a debug build, unless the calling thread holds the engine
    /// lock: every `…Locked` member and every access to engine-bound state
    /// starts with it. A release build does nothing.
    ///
    /// - Parameters:
    ///   - file: The caller's file, for the trap's message.
    ///   - line: The caller's line, for the trap's message.
    package func preconditionLocked(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        lock.preconditionHeld("engine state reached without the engine lock", file: file, line: line)
        #endif
    }

    /// Runs `body` holding the engine lock, with the device's context current,
    /// after any work queued by ``performLocked(_:)``. Never call it from code
    /// that already holds the lock (a debug build traps): call the `…Locked` path.
    ///
    /// On a device, the update loop sleeps until its next work is due; a
    /// call wakes it (`waking`) to look again, since the game may have
    /// changed what is due. Reads that change nothing pass `waking: false`.
    package func withLock<T>(waking: Bool = true, _ body: () throws -> T) rethrows -> T {
        lock.lock()
        rampWritesSeen = ALRampedWrites.count
        defer {
            if ALRampedWrites.count != rampWritesSeen { rampPending = true }
            if waking {
                stepRequested = true
                if wakesUpdateLoop { wakeUpdateLoopLocked() }
            }
            lock.unlock()
        }
        device.makeContextCurrent()
        runQueuedWorkLocked()
        return try body()
    }

    /// Runs `work` under the engine lock, at the next entry. For code that may
    /// run anywhere, the lock held or not: a deinitialiser that frees OpenAL
    /// objects (the last release of an object can happen inside a locked
    /// section, where taking the lock again would deadlock).
    package func performLocked(_ work: @escaping @Sendable (AudioEngine) -> Void) {
        lockedWork.withLockedValue { $0.append(work) }
    }

    private func runQueuedWorkLocked() {
        let work = lockedWork.withLockedValue { queued -> [@Sendable (AudioEngine) -> Void] in
            guard !queued.isEmpty else { return [] }
            defer { queued.removeAll() }
            return queued
        }
        if !work.isEmpty { stepRequested = true }
        for item in work { item(self) }
    }

    package func checkUsable(_ operation: String) throws {
        if isShutDown { throw BackbeatError(.engineShutDown, operation: operation) }
        if let error = deferredError { deferredError = nil; throw error }
    }
}
