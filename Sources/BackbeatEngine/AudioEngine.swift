import BackbeatCapture
import BackbeatMedia
import BackbeatOpenAL
import BackbeatSession
import BackbeatSupport
import BackbeatTelemetry
import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

    /// Loads under way in the background that a render waits for (offline and fast-file outputs).
    package let backgroundLoads: BackgroundLoads

    /// The fixed delay between mixing a frame and its appearance in the
    /// output: OpenAL Soft's output limiter looks 1 ms ahead. Scheduled
    /// starts (`play(at:)`) compensate for it.
    public let outputLatency: MediaTime
    package let latencyFrames: Int64

    package let lock: Lock
    /// Work queued by `performLocked(_:)`, run at the next entry under `lock`.
    private let lockedWork = LockedValueBox<[@Sendable (AudioEngine) -> Void]>([])
    /// The OpenAL device; replaced when the output is lost (see `AudioEngine+DeviceLoss`).
    package var device: ALDevice
    private var fileWriter: SoundFileWriter?
    var framesRendered: Int64 = 0
    var nextUpdateFrame: Int64 = 0
    // skipsIdleSteps, renderCounts, openBatches and busesChangedThisStep are
    // read from other modules, under the lock: a debug build checks it on
    // every access; a release build stores them plainly, as loads.
    /// Whether a render steps only at the update periods that have work (on
    /// by default). Off, it steps and calls OpenAL every period, as it used
    /// to: the tests render both ways and compare.
    #if DEBUG
    package var skipsIdleSteps: Bool {
        get {
            preconditionLocked()
            return _skipsIdleSteps
        }
        set {
            preconditionLocked()
            _skipsIdleSteps = newValue
        }
    }
    private var _skipsIdleSteps = true
    #else
    package var skipsIdleSteps = true
    #endif
    /// The game changed something since the last update step (a public entry
    /// point took the lock): the next period boundary steps.
    var stepRequested = true
    /// Asked after the last update step: the earliest frame at which a step
    /// has work (at or before the step's own frame: the next period; nil:
    /// none until the game changes something).
    var nextStepDue: Int64? = 0
    /// Something OpenAL Soft ramps (a gain, a placement, a filter) changed
    /// since its last mix call: the next call ends at the next period boundary.
    private var rampPending = false
    /// ``ALRampedWrites/count`` on this thread when the lock was taken or OpenAL last mixed.
    private var rampWritesSeen: UInt = 0
    /// Update steps run and OpenAL mix calls made by renders so far (for tests and the benchmarks).
    #if DEBUG
    package private(set) var renderCounts: (steps: Int, mixes: Int) {
        get {
            preconditionLocked()
            return _renderCounts
        }
        _modify {
            preconditionLocked()
            yield &_renderCounts
        }
        set {
            preconditionLocked()
            _renderCounts = newValue
        }
    }
    private var _renderCounts = (steps: 0, mixes: 0)
    #else
    package private(set) var renderCounts = (steps: 0, mixes: 0)
    #endif
    var components: [WeakComponent] = []
    /// What the monitor asks of the layers above (voices, music), weakly.
    var telemetryContributors: [WeakTelemetryContributor] = []
    /// The monitor's socket server while monitoring is on, else nil: the one
    /// check the update step and the event posts pay when nobody looks.
    package var telemetryServer: TelemetryServer?
    /// Monitoring's own state and the figures it reports (`AudioEngine+Monitoring.swift`).
    var monitoring = EngineMonitoring()
    /// The capture being written while one is on, else nil: the one check
    /// every recorded entry point pays when nobody captures (`AudioEngine+Capture.swift`).
    package var captureRecorder: CaptureRecorder?
    /// Who writes state into a capture as it starts.
    var captureObservers: [WeakCaptureObserver] = []
    private var isShutDown = false
    private var scratch: [Float] = []
    /// The thread that steps a real-time output (see `EngineUpdateLoop`).
    let updateLoop: EngineUpdateLoop
    /// Batches (`performBatchUpdates`) under way: while any is, OpenAL holds every change back.
    #if DEBUG
    package var openBatches: Int {
        get {
            preconditionLocked()
            return _openBatches
        }
        _modify {
            preconditionLocked()
            yield &_openBatches
        }
        set {
            preconditionLocked()
            _openBatches = newValue
        }
    }
    private var _openBatches = 0
    #else
    package var openBatches = 0
    #endif
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
    /// A `.device` engine's reopening of a lost device and following of the
    /// default output (see `DeviceWatch`).
    let deviceWatch = DeviceWatch()

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
    /// Files banks and sounds came from, and their watcher (`AudioEngine+FileWatch.swift`).
    var fileWatchStorage: EngineFileWatch?
    /// The cap on voices the effects layer's pool may make audible (nil: what the device grants).
    package let maximumVoices: Int?
    /// Whether a bus's gain or pause changed in the current update step.
    #if DEBUG
    package internal(set) var busesChangedThisStep: Bool {
        get {
            preconditionLocked()
            return _busesChangedThisStep
        }
        set {
            preconditionLocked()
            _busesChangedThisStep = newValue
        }
    }
    private var _busesChangedThisStep = false
    #else
    package internal(set) var busesChangedThisStep = false
    #endif
    var pendingEvents: [PendingDelivery] = []
    /// The `backbeat` logger and which problems it logged when (`AudioEngine+Logging.swift`).
    var problemLog = EngineLog()
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
        backgroundLoads = BackgroundLoads(for: output)
        let lock = Lock()
        self.lock = lock
        updateLoop = EngineUpdateLoop(engineLock: lock)
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
        recordSessionCallsInCaptures()
        if case .device = output {
            eventDelivery = EventDeliveryQueue(name: "Backbeat events")
            deliverSessionUpdatesOffTheAudioThread()
            clockOrigin = device.clockNanoseconds() ?? 0
            updateLoop.start(for: self, rendering: false)
            if case .device(let name, _) = output { deviceWatch.start(for: self, requestedName: name) }
        } else if case .file(_, _, .realTime) = output {
            eventDelivery = EventDeliveryQueue(name: "Backbeat events")
            deliverSessionUpdatesOffTheAudioThread()
            updateLoop.start(for: self, rendering: true)
        }
        startMonitoringIfAsked(environment: ProcessInfo.processInfo.environment)
        startCaptureIfAsked(environment: ProcessInfo.processInfo.environment)
    }

    deinit { shutdown() }

    // MARK: Rendering

    /// Renders `frames` frames and returns them as interleaved Float32.
    ///
    /// Update steps run on their fixed boundaries inside the span, so the
    /// result does not depend on how rendering is split into calls.
    /// On a `.file` output the frames are also written to the file.
    ///
    /// - Parameter frames: How many frames to render, above zero.
    /// - Returns: `frames * channelCount` interleaved samples.
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
    ///
    /// - Parameter duration: The engine time to move on by (rounded to whole frames).
    /// - Throws: What ``render(frames:)`` throws.
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
    package func render(frames: Int, into samples: inout [Float]) throws {
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
        recordRenderSplit()
    }

    /// Renders `frames` frames, stepping out of the lock before each update
    /// step the step observers have not seen (they post to the session), and
    /// to wait for loads (their loader needs the lock). Splitting a render
    /// changes nothing in the result, as splitting it into calls changes nothing.
    private func renderSteps(frames: Int, into samples: inout [Float]) throws {
        defer { deliverPendingEvents() }
        var done = 0
        var observedStep: Int64?
        while done < frames {
            if backgroundLoads.holdsRender { backgroundLoads.waitUntilIdle() }
            let (rendered, waitingStep) = try withLock(waking: false) { () -> (Int, Int64?) in
                try checkUsable("render(frames:)")
                if fileWatchStorage?.hasChangesLocked == true { stepRequested = true }  // see EngineFileWatch
                let rendered = try renderLocked(
                    frames: frames - done, into: &samples, at: done, observedStep: observedStep)
                // Stopped before a step for its observers (not after one, for a load).
                let stoppedBeforeStep = done + rendered < frames && framesRendered == nextUpdateFrame
                return (rendered, stoppedBeforeStep ? framesRendered : nil)
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
    /// whose start the step observers have not seen (`observedStep`), and
    /// after a step that left a load under way on an output that waits for
    /// loads; returns the frames rendered.
    ///
    /// A period with nothing due is not stepped (the step would change
    /// nothing), and OpenAL mixes such periods in one call: from a period
    /// boundary to the next one with work, unless something OpenAL ramps
    /// changed since its last call. Then the call ends at the next boundary,
    /// so the change lands within one period, as when every period is its
    /// own call. Either way the samples are the same.
    func renderLocked(
        frames: Int, into samples: inout [Float], at offset: Int = 0,
        observedStep: Int64? = nil
    ) throws -> Int {
        preconditionLocked()
        var done = 0
        let interval = Int64(updateInterval)
        while done < frames {
            if framesRendered == nextUpdateFrame {
                if !stepObservers.isEmpty, observedStep != framesRendered { break }
                let due = nextStepOrSnapshotLocked
                if !skipsIdleSteps || stepRequested || (due.map { $0 <= framesRendered } ?? false) {
                    stepRequested = false
                    try runUpdateLocked(at: framesRendered)
                    renderCounts.steps += 1
                    nextStepDue = skipsIdleSteps ? nextStepFrameLocked(after: framesRendered) : framesRendered
                }
                nextUpdateFrame += interval
                // The step (or another thread) started a load the next frames
                // may need: the caller waits for it outside the lock.
                if backgroundLoads.holdsRender { break }
            }
            if ALRampedWrites.count != rampWritesSeen { rampPending = true }
            if skipsIdleSteps, !rampPending, !stepRequested {
                // Mixes on through the boundaries before the next one with work.
                let end = min(nextStepOrSnapshotLocked ?? .max, framesRendered + Int64(frames - done))
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

    // MARK: Real-time outputs

    /// Renders `frames` on the calling thread, whatever the output: a paced
    /// file's shutdown fade, rendered by its own thread (which is not in a step).
    func renderOnRealTimeThread(frames: Int64) throws {
        try renderDiscarding(frames: frames) { try renderSteps(frames: $0, into: &$1) }
    }

    /// Keeps the first error an update step hit on a real-time thread, for the next call to report.
    func deferLocked(_ error: BackbeatError) {
        preconditionLocked()
        if deferredError == nil { deferredError = error }
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
        stopMonitoring()
        withLock { recordLocked(.shutdown) { _ in } }
        fadeOutMusicBeforeShutdown()
        updateLoop.stop(of: self)
        finishCaptureAtShutdown()
        deviceWatch.stop()
        withLock {
            guard !isShutDown else { return }
            isShutDown = true
            for component in components.compactMap(\.component) { component.engineWillShutDown() }
            fileWatchStorage?.closeLocked()
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
    package var isRunningLocked: Bool {
        preconditionLocked()
        return !isShutDown
    }

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
                updateLoop.wakeLocked()
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
        preconditionLocked()
        let work = lockedWork.withLockedValue { queued -> [@Sendable (AudioEngine) -> Void] in
            guard !queued.isEmpty else { return [] }
            defer { queued.removeAll() }
            return queued
        }
        if !work.isEmpty { stepRequested = true }
        for item in work { item(self) }
    }

    /// Throws, under the lock, when the engine can no longer be used: it shut
    /// down, or a real-time step hit an error the caller should hear of.
    ///
    /// - Parameter operation: The caller's name, for the error.
    /// - Throws: ``BackbeatError/Code/engineShutDown`` after shutdown, or the
    ///   error a real-time step deferred.
    package func checkUsable(_ operation: String) throws {
        preconditionLocked()
        if isShutDown { throw BackbeatError(.engineShutDown, operation: operation) }
        if let error = deferredError {
            deferredError = nil
            throw error
        }
    }
}
