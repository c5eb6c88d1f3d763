import Foundation  // NSRecursiveLock, NSCondition, Thread: until the engine has its own lock and thread
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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
public final class AudioEngine: @unchecked Sendable {
    // @unchecked: all mutable state is guarded by `lock` (`withLock`), which
    // every device this engine opens shares, so it also serialises every
    // OpenAL call and lets a lost device be replaced safely.

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

    let lock = NSRecursiveLock()
    /// The OpenAL device; replaced when the output is lost (see `AudioEngine+DeviceLoss`).
    package var device: ALDevice
    private var fileWriter: SoundFileWriter?
    var framesRendered: Int64 = 0
    var nextUpdateFrame: Int64 = 0
    var components: [WeakComponent] = []
    private var isShutDown = false
    private var scratch: [Float] = []
    private var realTimeThread: Thread?
    private let realTimeStop = NSCondition()
    private var realTimeRunning = false
    var clockOrigin: Int64 = 0
    /// Engine frames already counted when the current device's clock started.
    var clockBaseFrame: Int64 = 0
    /// The first error an update step hit on a real-time thread, reported by the next call.
    private var deferredError: BackbeatError?

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
    /// Per-engine state of the layers above (see `AudioEngine+Attachments`).
    var attachments: [ObjectIdentifier: AnyObject] = [:]
    /// The cap on voices the effects layer's pool may make audible (nil: what the device grants).
    package let maximumVoices: Int?
    /// Whether a bus's gain or pause changed in the current update step.
    package private(set) var busesChangedThisStep = false
    var pendingEvents: [PendingDelivery] = []
    var eventHandlers: [@Sendable (PlaybackEvent) -> Void] = []
    var eventContinuations: [AsyncStream<PlaybackEvent>.Continuation] = []
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
            device = try ALDevice.openPlayback(name: name, lock: lock)
        case .offline(let rate, let channels):
            try Self.validate(sampleRate: rate, channels: channels)
            OutputLatency.default.prepareOpenAL()
            device = try ALDevice.openLoopback(sampleRate: rate, channels: channels, lock: lock)
        case .file(let url, let rate, _):
            try Self.validate(sampleRate: rate, channels: 2)
            OutputLatency.default.prepareOpenAL()
            let device = try ALDevice.openLoopback(sampleRate: rate, channels: 2, lock: lock)
            self.fileWriter = try SoundFileWriter(url: url, type: .wavFloat, sampleRate: rate, channelCount: 2, overwrite: true)
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
            clockOrigin = device.clockNanoseconds() ?? 0
            startRealTimeThread(rendering: false)
        } else if case .file(_, _, .realTime) = output {
            startRealTimeThread(rendering: true)
        }
    }

    deinit { shutdown() }

    private static func validate(sampleRate: Int, channels: Int) throws {
        guard sampleRate > 0 else {
            throw BackbeatError(.invalidArgument, operation: "AudioEngine.init", reason: "sample rate must be positive, got \(sampleRate)")
        }
        guard (8_000...384_000).contains(sampleRate) else {
            throw BackbeatError(.unsupportedFormat, operation: "AudioEngine.init", reason: "sample rate \(sampleRate) Hz (8000...384000)")
        }
        guard [1, 2, 4, 6].contains(channels) else {
            throw BackbeatError(.unsupportedFormat, operation: "AudioEngine.init", reason: "\(channels) channels (1, 2, 4 or 6)")
        }
    }

    // MARK: Time

    /// Engine time: frames rendered (or played, on a device) since the engine opened.
    public var currentTime: MediaTime {
        MediaTime(frames: currentFrame, sampleRate: sampleRate)
    }

    /// Engine time in frames.
    package var currentFrame: Int64 {
        withLock {
            guard !device.isLoopback else { return framesRendered }
            let ns = (device.clockNanoseconds() ?? clockOrigin) - clockOrigin
            return clockBaseFrame + Int64((Double(ns) * Double(sampleRate) / 1e9).rounded(.down))
        }
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
        var remaining = frames
        while remaining > 0 {
            let chunk = Int(min(remaining, 8_192))
            if scratch.count < chunk * channelCount { scratch = [Float](repeating: 0, count: chunk * channelCount) }
            try render(frames: chunk, into: &scratch)
            remaining -= Int64(chunk)
        }
    }

    /// Renders into `samples`, which must hold `frames * channelCount` floats.
    func render(frames: Int, into samples: inout [Float]) throws {
        guard frames > 0 else {
            throw BackbeatError(.invalidArgument, operation: "render(frames:)", reason: "frames must be positive, got \(frames)")
        }
        defer { deliverPendingEvents() }
        try withLock {
            try checkUsable("render(frames:)")
            switch output {
            case .device, .file(_, _, .realTime):
                throw BackbeatError(.wrongOutput, operation: "render(frames:)", reason: "this output renders on its own in real time")
            case .offline, .file:
                try renderLocked(frames: frames, into: &samples)
            }
        }
    }

    /// The render loop: update steps on absolute boundaries, OpenAL mixing between them.
    private func renderLocked(frames: Int, into samples: inout [Float]) throws {
        var done = 0
        while done < frames {
            if framesRendered == nextUpdateFrame {
                try runUpdate(at: framesRendered)
                nextUpdateFrame += Int64(updateInterval)
            }
            let chunk = min(frames - done, Int(nextUpdateFrame - framesRendered))
            device.render(frames: chunk, into: &samples, at: done * channelCount)
            done += chunk
            framesRendered += Int64(chunk)
        }
        try fileWriter?.write(samples[0..<(frames * channelCount)])
    }

    // MARK: Update step

    /// Adds a component to the update loop, after the others, or before them
    /// when `first` (the voice pool: its voices see this step's bus gains
    /// before anything else the step changes).
    package func register(_ component: any EngineComponent, first: Bool = false) {
        withLock { components.insert(WeakComponent(component: component), at: first ? 0 : components.count) }
    }

    private func runUpdate(at frame: Int64) throws {
        // A loopback device mixes only inside render, after this step, so its
        // changes land together anyway; a real device mixes on its own thread,
        // so its changes are deferred and applied at once.
        if device.isLoopback {
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
                post(.fadeCompleted(bus: bus.name))
                post(callback: completion)
            }
        }
        var changed = false
        for bus in buses {
            let gain = bus.effectiveGain(at: frame), paused = bus.isEffectivelyPaused
            if gain != bus.stepGain || paused != bus.stepPaused { changed = true }
            bus.stepGain = gain
            bus.stepPaused = paused
        }
        busesChangedThisStep = changed
    }

    // MARK: Real-time outputs

    private func startRealTimeThread(rendering: Bool) {
        realTimeRunning = true
        let period = Double(updateInterval) / Double(sampleRate)
        let stop = realTimeStop
        let samplesPerStep = updateInterval * channelCount
        // The thread holds the engine weakly between steps, so dropping the
        // last reference still shuts the engine down.
        let thread = Thread { [weak self] in
            let start = DispatchTime.now().uptimeNanoseconds
            var steps: UInt64 = 0
            var buffer = [Float](repeating: 0, count: samplesPerStep)
            while let engine = self, engine.realTimeStep(rendering: rendering, buffer: &buffer) {
                engine.deliverPendingEvents()
                steps += 1
                let deadline = start + UInt64(Double(steps) * period * 1e9)
                let now = DispatchTime.now().uptimeNanoseconds
                guard deadline > now else { continue }
                stop.lock()
                _ = stop.wait(until: Date(timeIntervalSinceNow: Double(deadline - now) / 1e9))
                stop.unlock()
            }
            ALDevice.clearThreadContext()
        }
        thread.name = "Backbeat engine"
        thread.qualityOfService = .userInteractive
        realTimeThread = thread
        thread.start()
    }

    /// One step of a real-time output: an update step when the device clock
    /// has reached the next boundary, or (for a paced file) one rendered
    /// update period. Behaviour reads only engine time; the wall clock only
    /// decides when the thread wakes. Returns false once the engine stops.
    private func realTimeStep(rendering: Bool, buffer: inout [Float]) -> Bool {
        withLock {
            guard realTimeRunning else { return false }
            do {
                if !device.isLoopback, !device.isConnected {
                    handleDeviceLoss()
                }
                if rendering || device.isLoopback {
                    try renderLocked(frames: updateInterval, into: &buffer)
                } else {
                    let frame = currentFrame
                    if frame >= nextUpdateFrame {
                        try runUpdate(at: frame)
                        nextUpdateFrame = frame + Int64(updateInterval)
                    }
                }
            } catch let error as BackbeatError {
                if deferredError == nil { deferredError = error }
            } catch {}
            return true
        }
    }

    private func stopRealTimeThread() {
        guard let thread = realTimeThread else { return }
        withLock { realTimeRunning = false }
        realTimeStop.lock(); realTimeStop.broadcast(); realTimeStop.unlock()
        while !thread.isFinished { usleep(500) }
        realTimeThread = nil
    }

    // MARK: Shutdown

    /// Fades the music players out (``shutdownFadeDuration``), then stops every
    /// sound, releases every OpenAL source, buffer, context and device, and
    /// completes a `.file` output. Idempotent. Any use of the
    /// engine afterwards throws ``BackbeatError/Code/engineShutDown``.
    public func shutdown() {
        fadeOutMusicBeforeShutdown()
        stopRealTimeThread()
        withLock {
            guard !isShutDown else { return }
            isShutDown = true
            try? device.withContext { for component in components.compactMap(\.component) { component.engineWillShutDown() } }
            components.removeAll()
            device.close()
            do { try fileWriter?.finish() } catch let error as BackbeatError { deferredError = error } catch {}
            fileWriter = nil
        }
        deliverPendingEvents()
        let continuations = withLock {
            defer { eventContinuations.removeAll() }
            return eventContinuations
        }
        for continuation in continuations { continuation.finish() }
    }

    /// Whether ``shutdown()`` has not run yet.
    public var isRunning: Bool { withLock { !isShutDown } }
    package var isRunningLocked: Bool { !isShutDown }

    // MARK: Locking

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        device.makeContextCurrent()
        return try body()
    }

    package func checkUsable(_ operation: String) throws {
        if isShutDown { throw BackbeatError(.engineShutDown, operation: operation) }
        if let error = deferredError { deferredError = nil; throw error }
    }
}
