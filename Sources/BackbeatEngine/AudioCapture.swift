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

/// A microphone or other capture device that OpenAL can open
/// (`ALC_EXT_CAPTURE`), like `AVCaptureDevice`.
///
/// With PulseAudio, OpenAL Soft names a source by its description; a null
/// sink's monitor made by the testing sound server is named `<sink>.monitor`.
public struct AudioCaptureDevice: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The device's name as OpenAL reports it (`ALC_CAPTURE_DEVICE_SPECIFIER`).
    public let name: String

    /// A device by name, as ``available`` lists it.
    ///
    /// - Parameter name: The name OpenAL reports (`ALC_CAPTURE_DEVICE_SPECIFIER`).
    public init(name: String) { self.name = name }

    /// The capture devices OpenAL can enumerate now (empty with no sound
    /// server and no capture card; a device listed may still fail to open).
    public static var available: [AudioCaptureDevice] {
        ALCaptureDevice.deviceNames().map(AudioCaptureDevice.init(name:))
    }

    /// The system's default capture device, nil when OpenAL reports none.
    public static var `default`: AudioCaptureDevice? {
        ALCaptureDevice.defaultDeviceName().map(AudioCaptureDevice.init(name:))
    }

    public var description: String { name }
}

/// Captures audio from a capture device as PCM buffers, like
/// `AVAudioRecorder` with a tap: a stream of buffers, a level meter, and
/// recording to a file through ``AssetWriter``.
///
/// A capture thread reads the device every half buffer and hands on every
/// full buffer of ``bufferFrameCount`` frames. Each buffer's
/// `presentationTime` is its first frame's place: the engine time when
/// capture started plus the frames captured before it, or, with no engine,
/// the frames captured since the first ``start()``.
///
/// ```swift
/// let capture = try AudioCapture(format: AudioFormat(sampleRate: 48_000, channelCount: 1))
/// try await capture.record(to: url, fileType: .wav, forDuration: MediaTime(seconds: 3))
/// print(capture.level.peakPower)
/// ```
public final class AudioCapture: Sendable {
    /// The level of the latest buffer, in dBFS (0 is full scale; silence is -160).
    public struct Level: Sendable, Hashable, CustomStringConvertible {
        /// The largest absolute sample, in dBFS.
        public let peakPower: Float
        /// The root mean square of every sample, in dBFS (a full-scale sine reads -3.01).
        public let averagePower: Float

        /// The floor: what silence reads.
        public static let silence = Level(peakPower: -160, averagePower: -160)

        /// Creates a level from the two figures in dBFS.
        ///
        /// - Parameters:
        ///   - peakPower: The largest absolute sample, in dBFS.
        ///   - averagePower: The root mean square, in dBFS.
        public init(peakPower: Float, averagePower: Float) {
            self.peakPower = peakPower
            self.averagePower = averagePower
        }

        /// The level of interleaved samples in -1...1.
        ///
        /// - Parameter samples: Interleaved samples; non-finite ones are skipped, and none reads as ``silence``.
        public init(samples: [Float]) {
            var peak: Float = 0
            var sum: Double = 0
            for sample in samples where sample.isFinite {
                peak = max(peak, abs(sample))
                sum += Double(sample) * Double(sample)
            }
            let rms = samples.isEmpty ? 0 : Float((sum / Double(samples.count)).squareRoot())
            self.init(peakPower: Self.decibels(peak), averagePower: Self.decibels(rms))
        }

        static func decibels(_ amplitude: Float) -> Float {
            amplitude > 1e-8 ? max(-160, 20 * log10(amplitude)) : -160
        }

        /// `peak -6.0 dBFS, rms -9.0 dBFS`.
        public var description: String {
            "peak \((peakPower * 10).rounded() / 10) dBFS, rms \((averagePower * 10).rounded() / 10) dBFS"
        }
    }

    /// The device's name as OpenAL reports it.
    public let deviceName: String
    /// The format of every buffer: the rate, 1 or 2 channels, and Float32 or Int16, interleaved.
    public let format: AudioFormat
    /// Frames in each buffer.
    public let bufferFrameCount: Int

    private let device: ALCaptureDevice
    private let deviceLock = Lock()
    private let state: ConditionLock<State>
    private let broadcast: EventBroadcast<PCMBuffer>
    private let engineTime: (@Sendable () -> MediaTime)?

    private struct State {
        var running = false
        var closed = false
        var lost = false
        var thread: JoinableThread?
        /// Frames handed on since the first start.
        var framesCaptured: Int64 = 0
        /// Where the frames of the current run begin in engine time (or capture time).
        var runStart: MediaTime = .zero
        var framesAtRunStart: Int64 = 0
        var level = Level.silence
    }

    /// Opens a capture device.
    ///
    /// - Parameters:
    ///   - device: the device, or nil for the default one.
    ///   - format: 8000 to 192000 Hz, 1 or 2 channels, `.float32` or `.int16`
    ///     (the buffers are interleaved whatever `isInterleaved` says).
    ///   - bufferDuration: the length of each buffer, 1 ms to 1 s; the
    ///     device's ring buffer holds four of them.
    ///   - engine: whose time stamps the buffers; nil stamps capture time.
    /// - Throws: ``BackbeatError`` `.invalidArgument` for a format or duration
    ///   out of range, `.captureUnavailable` when the device cannot be opened.
    public init(
        device: AudioCaptureDevice? = nil,
        format: AudioFormat = AudioFormat(sampleRate: 48_000, channelCount: 1),
        bufferDuration: MediaTime = MediaTime(value: 20, timescale: 1_000),
        engine: AudioEngine? = nil
    ) throws {
        guard bufferDuration >= MediaTime(value: 1, timescale: 1_000),
            bufferDuration <= MediaTime(value: 1, timescale: 1)
        else {
            throw BackbeatError(
                .invalidArgument, operation: "AudioCapture",
                reason: "buffer duration \(bufferDuration.seconds) s (1 ms to 1 s are supported)")
        }
        guard format.sampleRate >= 8_000, format.sampleRate <= 192_000 else {
            throw BackbeatError(
                .invalidArgument, operation: "AudioCapture",
                reason: "sample rate \(format.sampleRate) Hz (8000 to 192000 are supported)")
        }
        let frames = max(1, Int(bufferDuration.frames(atSampleRate: format.sampleRate)))
        let opened = try ALCaptureDevice.open(
            name: device?.name, sampleRate: format.sampleRate, channels: format.channelCount,
            float: format.commonFormat == .float32, bufferFrames: frames * 4)
        self.device = opened
        self.deviceName = opened.name
        self.format = AudioFormat(
            sampleRate: format.sampleRate, channelCount: format.channelCount, commonFormat: format.commonFormat)
        self.bufferFrameCount = frames
        // Streams keep the newest 10 s of unread buffers (at least 64).
        let limit = max(64, 10 * format.sampleRate / frames)
        self.broadcast = EventBroadcast(bufferLimit: limit)
        self.state = ConditionLock(State())
        if let engine {
            self.engineTime = { [weak engine] in engine?.currentTime ?? .zero }
        } else {
            self.engineTime = nil
        }
    }

    deinit {
        close()
    }

    /// Whether the device is capturing.
    public var isCapturing: Bool { state.withLockedValue { $0.running } }

    /// The level of the latest buffer (``Level/silence`` before the first).
    public var level: Level { state.withLockedValue { $0.level } }

    /// Frames handed on since the first ``start()``.
    public var framesCaptured: Int64 { state.withLockedValue { $0.framesCaptured } }

    /// A new stream of every buffer captured from now on. It keeps the newest
    /// 10 s its consumer has not read, and ends when the capture is closed or
    /// its device is lost.
    public func buffers() -> AsyncStream<PCMBuffer> { broadcast.events() }

    /// Calls `handler` on the capture thread with every buffer captured from
    /// now on, until the token is cancelled.
    ///
    /// - Parameter handler: Called with each full buffer; keep it short, the capture thread waits for it.
    /// - Returns: A token; cancel it (or let it go) to stop the calls.
    public func observe(_ handler: @escaping @Sendable (PCMBuffer) -> Void) -> ObservationToken {
        broadcast.observe(handler)
    }

    /// Starts capturing. Calling it while capturing does nothing.
    ///
    /// - Throws: ``BackbeatError`` `.engineShutDown` after ``close()``,
    ///   `.captureUnavailable` once the device was lost.
    public func start() throws {
        let now = engineTime?()
        let thread: JoinableThread? = try state.withLockedValue { state in
            guard !state.closed else {
                throw BackbeatError(.engineShutDown, operation: "AudioCapture.start", reason: "the capture is closed")
            }
            guard !state.lost else {
                throw BackbeatError(
                    .captureUnavailable, operation: "AudioCapture.start", reason: "\"\(deviceName)\" was lost")
            }
            guard !state.running else { return nil }
            state.running = true
            state.framesAtRunStart = state.framesCaptured
            state.runStart = now ?? MediaTime(frames: state.framesCaptured, sampleRate: format.sampleRate)
            // The thread holds the capture only for one step at a time, so a
            // capture dropped while running is closed by its deinit.
            let thread = JoinableThread(name: "backbeat-capture") { [weak self] in
                while let capture = self, capture.step() {}
            }
            state.thread = thread
            return thread
        }
        guard let thread else { return }
        deviceLock.withLock {
            // What the ring buffer kept from before a stop is not this run's.
            if let stale = device.availableFrames(), stale > 0 {
                _ = device.isFloat ? device.readFloats(frames: stale).count : device.readInt16s(frames: stale).count
            }
            device.start()
        }
        thread.start()
    }

    /// Stops capturing; buffers already full are handed on first. The
    /// streams go on (a later ``start()`` continues them).
    public func stop() {
        let thread = state.withLockedValue { state -> JoinableThread? in
            state.running = false
            defer { state.thread = nil }
            return state.thread
        }
        thread?.joinUnlessCurrent()
        deviceLock.withLock { device.stop() }
    }

    /// Stops capturing, closes the device and ends the streams. Idempotent.
    public func close() {
        stop()
        state.withLockedValue { $0.closed = true }
        deviceLock.withLock { device.close() }
        broadcast.finish()
    }

    /// One step of the capture thread: waits half a buffer (or for a stop),
    /// then hands on each full buffer. False when the thread should end.
    private func step() -> Bool {
        let period = UInt64(bufferFrameCount) * 1_000_000_000 / UInt64(format.sampleRate) / 2
        let deadline = MonotonicClock.now() + max(period, 1_000_000)
        let stopping = state.wait(until: deadline) { !$0.running }
        guard drain() else {
            state.withLockedValue {
                $0.lost = true
                $0.running = false
            }
            broadcast.finish()
            return false
        }
        return !stopping
    }

    /// Hands on every full buffer the device holds; false when the device was lost.
    private func drain() -> Bool {
        while true {
            let read: PCMBuffer.Samples? = deviceLock.withLock {
                guard let available = device.availableFrames() else { return nil }
                guard available >= bufferFrameCount else { return .float32([]) }
                return device.isFloat
                    ? .float32(device.readFloats(frames: bufferFrameCount))
                    : .int16(device.readInt16s(frames: bufferFrameCount))
            }
            guard let read else { return false }
            let floats: [Float]
            switch read {
            case .float32(let samples):
                if samples.isEmpty { return true }
                floats = samples
            case .int16(let samples):
                floats = samples.map { Float($0) / 32_768 }
            }
            let time = state.withLockedValue { state -> MediaTime in
                let offset = MediaTime(
                    frames: state.framesCaptured - state.framesAtRunStart, sampleRate: format.sampleRate)
                state.framesCaptured += Int64(bufferFrameCount)
                state.level = Level(samples: floats)
                return state.runStart + offset
            }
            let buffer: PCMBuffer?
            switch read {
            case .float32(let samples): buffer = try? PCMBuffer(format: format, floats: samples, presentationTime: time)
            case .int16(let samples): buffer = try? PCMBuffer(format: format, int16s: samples, presentationTime: time)
            }
            if let buffer { broadcast.send(buffer) }
        }
    }

    /// Captures `duration` of audio into a file through ``AssetWriter``, in
    /// ``format`` (its rate, channels and sample type), and returns when the
    /// file is complete and in place. Starts capturing if needed, and stops
    /// again afterwards if it started.
    ///
    /// - Parameters:
    ///   - url: The file to write.
    ///   - fileType: The container and encoding.
    ///   - duration: How much audio to capture, above zero and at most 24 hours.
    ///   - overwrite: Whether an existing file at `url` may be replaced.
    /// - Throws: ``BackbeatError`` `.invalidArgument` for a duration not
    ///   above zero or over 24 hours, the writer's errors, `.captureUnavailable`
    ///   if the device is lost first, or `CancellationError`; nothing is left
    ///   behind then.
    public func record(
        to url: URL, fileType: AudioFileType, forDuration duration: MediaTime, overwrite: Bool = false
    ) async throws {
        guard duration > .zero, duration <= MediaTime(value: 86_400, timescale: 1) else {
            throw BackbeatError(
                .invalidArgument, operation: "record", url: url,
                reason: "duration \(duration.seconds) s (above 0 and at most 24 hours)")
        }
        let total = Int(duration.frames(atSampleRate: format.sampleRate, rounding: .up))
        let writer = try AssetWriter(outputURL: url, fileType: fileType, overwrite: overwrite)
        let input = AssetWriterInput(outputSettings: format)
        try writer.add(input)
        try writer.startWriting()
        let stream = buffers()
        let started = !isCapturing
        do {
            if started { try start() }
            defer { if started { stop() } }
            var written = 0
            for await buffer in stream {
                let take = min(buffer.frameCount, total - written)
                if take == buffer.frameCount {
                    try input.append(buffer)
                } else {
                    let samples = buffer.interleavedFloats.prefix(take * format.channelCount)
                    switch buffer.samples {
                    case .int16(let s):
                        try input.append(
                            PCMBuffer(
                                format: format, int16s: Array(s.prefix(take * format.channelCount)),
                                presentationTime: buffer.presentationTime))
                    case .float32:
                        try input.append(
                            PCMBuffer(format: format, floats: Array(samples), presentationTime: buffer.presentationTime)
                        )
                    }
                }
                written += take
                if written >= total { break }
            }
            try Task.checkCancellation()
            guard written >= total else {
                throw BackbeatError(
                    .captureUnavailable, operation: "record", url: url,
                    reason: "\"\(deviceName)\" stopped after \(written) of \(total) frames")
            }
            input.markAsFinished()
            try await writer.finishWriting()
        } catch {
            writer.cancelWriting()
            throw error
        }
    }
}
