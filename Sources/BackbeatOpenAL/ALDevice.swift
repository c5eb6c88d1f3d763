import BackbeatSupport
import COpenAL

/// The one door to OpenAL: an ALC device with its context.
///
/// Every `al*`/`alc*` call in Backbeat goes through this type or its
/// extensions in this folder. Calls run with the device's context made
/// current on the calling thread (ALC_EXT_thread_local_context), so several
/// engines can live in one process and be driven from any thread.
///
/// A device does not lock: its owner serialises every call (the engine makes
/// each one under its own lock, which also lets it replace a lost device), so
/// no call here waits for another or takes a lock its caller holds.
package final class ALDevice: @unchecked Sendable {
    // @unchecked: the owner serialises every call (see above); a device with
    // no owner (a probe, the benchmark's raw baseline) stays on one thread.
    private(set) var device: OpaquePointer?
    private var context: OpaquePointer?
    /// OpenAL names this device created and has not yet deleted.
    package private(set) var liveSources = Set<ALuint>()
    package private(set) var liveBuffers = Set<ALuint>()
    /// EFX names this device created: auxiliary effect slots, and the scratch
    /// effect and filter whose parameters are copied into slots and sources.
    var liveEffectSlots = Set<ALuint>()
    var scratchEffect: ALuint = 0
    var scratchFilter: ALuint = 0

    package let isLoopback: Bool
    /// The attributes after the common ones that a reset must ask for again
    /// (a loopback device's format, a playback device's rate).
    private var formatAttributes: [ALCint] = []
    /// The auxiliary sends per source a reset asks for (``requestAuxiliarySends(_:)``).
    private var auxiliarySendRequest = ALDevice.requestedAuxiliarySends
    /// How many auxiliary sends each source has, as the device granted them
    /// when its context was made or last reset (0 once closed). Kept, since
    /// an update step asks for every voice on a bus with an effect.
    package private(set) var auxiliarySendCount = 0
    package let sampleRate: Int
    package let channelCount: Int
    /// The device's name as OpenAL reports it.
    package let name: String

    private init(device: OpaquePointer, context: OpaquePointer, isLoopback: Bool, sampleRate: Int, channelCount: Int) {
        self.device = device
        self.context = context
        self.isLoopback = isLoopback
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        // A playback device's own name is its entry in the ALL list (with
        // PulseAudio, the sink's description); ALC_DEVICE_SPECIFIER says only
        // "OpenAL Soft" there.
        let all = !isLoopback && alcIsExtensionPresent(device, "ALC_ENUMERATE_ALL_EXT") == ALC_TRUE
        let specifier = all ? ALC_ALL_DEVICES_SPECIFIER : ALC_DEVICE_SPECIFIER
        self.name = alcGetString(device, ALCenum(specifier)).map { String(cString: $0) } ?? "unknown"
        // Each source carries its own distance model (AL_EXT_source_distance_model),
        // so a voice can override the engine's.
        // The thread's current context is put back: a caller replacing a lost
        // device still talks to the old one's sources.
        let previous = alcGetThreadContext()
        alcSetThreadContext(context)
        alEnable(AL_SOURCE_DISTANCE_MODEL)
        _ = alGetError()
        alcSetThreadContext(previous)
        auxiliarySendCount = grantedAuxiliarySends()
    }

    deinit { close() }

    /// Runs `body` with this device's context current on this thread.
    package func withContext<T>(_ operation: String = "OpenAL", _ body: () throws -> T) throws -> T {
        guard let context else { throw BackbeatError(.engineShutDown, operation: operation) }
        // Setting a context takes OpenAL's global list lock; reading it is a thread-local load.
        if alcGetThreadContext() != context { alcSetThreadContext(context) }
        return try body()
    }

    /// Leaves no context current on this thread (before a thread ends).
    package static func clearThreadContext() { alcSetThreadContext(nil) }

    /// Makes this device's context current on this thread, if it is open.
    /// Code under the engine lock calls `ALSource` directly, and the calling
    /// thread may never have used this device, or last used another engine's.
    package func makeContextCurrent() {
        if let context, alcGetThreadContext() != context { alcSetThreadContext(context) }
    }

    var isClosed: Bool { context == nil }

    // MARK: Opening

    /// Attributes every Backbeat context asks for: the output limiter on (so a
    /// full mix stays within ±1.0), HRTF as `hrtf` asks (none when opening),
    /// and `sends` auxiliary sends per source (by default the two Backbeat
    /// uses; OpenAL Soft clamps the request to what it has).
    private static func contextAttributes(
        hrtf: ALCint = ALCint(ALC_FALSE), sends: ALCint = requestedAuxiliarySends
    ) -> [ALCint] {
        [
            ALCint(ALC_OUTPUT_LIMITER_SOFT), ALCint(ALC_TRUE),
            ALCint(ALC_HRTF_SOFT), hrtf,
            ALCint(ALC_MAX_AUXILIARY_SENDS), sends,
        ]
    }

    /// Opens a real output device (nil for the default one).
    package static func openPlayback(name: String?) throws -> ALDevice {
        ALLog.prepare()
        ALConfig.applyApplicationIdentity()
        _ = alcGetError(nil)
        let device: OpaquePointer? = name.map { alcOpenDevice($0) } ?? alcOpenDevice(nil)
        guard let device else {
            // OpenAL Soft reports "no backend could open a device" as ALC_OUT_OF_MEMORY,
            // which read as a memory problem; what a user needs to hear is that there is no device.
            let why =
                alcGetError(nil) == ALC_INVALID_VALUE && name != nil
                ? "no output device has that name" : "no output device (no sound server or sound card)"
            throw BackbeatError(
                .deviceUnavailable, operation: "alcOpenDevice",
                reason: "\(name.map { "\"\($0)\"" } ?? "default device"): \(why)")
        }
        let attributes = Self.contextAttributes() + [0]
        guard let context = alcCreateContext(device, attributes) else {
            let reason = alcErrorString(device)
            alcCloseDevice(device)
            throw BackbeatError(.deviceUnavailable, operation: "alcCreateContext", reason: reason)
        }
        var frequency: ALCint = 0
        alcGetIntegerv(device, ALCenum(ALC_FREQUENCY), 1, &frequency)
        let opened = ALDevice(
            device: device, context: context, isLoopback: false,
            sampleRate: Int(frequency), channelCount: 2)
        opened.formatAttributes = [ALCint(ALC_FREQUENCY), frequency]
        return opened
    }

    /// Opens a loopback device that renders Float32 on request (ALC_SOFT_loopback).
    package static func openLoopback(sampleRate: Int, channels: Int) throws -> ALDevice {
        let channelEnum: ALCint
        switch channels {
        case 1: channelEnum = ALCint(ALC_MONO_SOFT)
        case 2: channelEnum = ALCint(ALC_STEREO_SOFT)
        case 4: channelEnum = ALCint(ALC_QUAD_SOFT)
        case 6: channelEnum = ALCint(ALC_5POINT1_SOFT)
        default:
            throw BackbeatError(
                .unsupportedFormat, operation: "alcLoopbackOpenDeviceSOFT",
                reason: "\(channels) channels (1, 2, 4 or 6 are supported)")
        }
        ALLog.prepare()
        guard let device = alcLoopbackOpenDeviceSOFT(nil) else {
            throw BackbeatError(.deviceUnavailable, operation: "alcLoopbackOpenDeviceSOFT", reason: alcErrorString(nil))
        }
        guard
            alcIsRenderFormatSupportedSOFT(device, ALCsizei(sampleRate), channelEnum, ALCint(ALC_FLOAT_SOFT))
                == ALC_TRUE
        else {
            alcCloseDevice(device)
            throw BackbeatError(
                .unsupportedFormat, operation: "alcIsRenderFormatSupportedSOFT",
                reason: "\(sampleRate) Hz, \(channels) channels, float32")
        }
        let format = [
            ALCint(ALC_FORMAT_CHANNELS_SOFT), channelEnum,
            ALCint(ALC_FORMAT_TYPE_SOFT), ALCint(ALC_FLOAT_SOFT),
            ALCint(ALC_FREQUENCY), ALCint(sampleRate),
        ]
        let attributes = Self.contextAttributes() + format + [0]
        guard let context = alcCreateContext(device, attributes) else {
            let reason = alcErrorString(device)
            alcCloseDevice(device)
            throw BackbeatError(.unsupportedFormat, operation: "alcCreateContext", reason: reason)
        }
        let opened = ALDevice(
            device: device, context: context, isLoopback: true, sampleRate: sampleRate, channelCount: channels)
        opened.formatAttributes = format
        return opened
    }

    /// Stops every live source (a device being left: it must fall silent
    /// before it is closed elsewhere). Talks only to OpenAL's mixer, never to
    /// the sound server, so a frozen server cannot block it.
    package func stopAllSources() {
        guard let context else { return }
        if alcGetThreadContext() != context { alcSetThreadContext(context) }
        for source in liveSources { alSourceStop(source) }
    }

    /// Deletes every source and buffer still alive, then the context and device. Idempotent.
    package func close() {
        guard let context, let device else { return }
        alcSetThreadContext(context)
        for var source in liveSources {
            alSourceStop(source)
            alDeleteSources(1, &source)
        }
        for var buffer in liveBuffers { alDeleteBuffers(1, &buffer) }
        deleteEffectNames()
        liveSources.removeAll()
        liveBuffers.removeAll()
        alcSetThreadContext(nil)
        alcDestroyContext(context)
        alcCloseDevice(device)
        self.context = nil
        self.device = nil
        auxiliarySendCount = 0
    }

    // MARK: Device queries

    /// Renders `frames` interleaved Float32 frames into `samples` at `offset` (loopback only).
    package func render(frames: Int, into samples: inout [Float], at offset: Int) {
        guard let device, frames > 0 else { return }
        samples.withUnsafeMutableBufferPointer { out in
            alcRenderSamplesSOFT(device, out.baseAddress! + offset, ALCsizei(frames))
        }
    }

    /// The device clock in nanoseconds (ALC_SOFT_device_clock), or nil if unsupported.
    package func clockNanoseconds() -> Int64? {
        guard let device, alcIsExtensionPresent(device, "ALC_SOFT_device_clock") == ALC_TRUE else { return nil }
        var value: ALCint64SOFT = 0
        alcGetInteger64vSOFT(device, ALCenum(ALC_DEVICE_CLOCK_SOFT), 1, &value)
        return Int64(value)
    }

    /// The device's output latency in nanoseconds, as OpenAL Soft reports it.
    package func latencyNanoseconds() -> Int64? {
        guard let device, alcIsExtensionPresent(device, "ALC_SOFT_device_clock") == ALC_TRUE else { return nil }
        var value: ALCint64SOFT = 0
        alcGetInteger64vSOFT(device, ALCenum(ALC_DEVICE_LATENCY_SOFT), 1, &value)
        return Int64(value)
    }

    /// The device clock and the output latency (ns) read together
    /// (`ALC_DEVICE_CLOCK_LATENCY_SOFT`): the frame mixed at that clock is
    /// heard that much later.
    package func clockAndLatencyNanoseconds() -> (clock: Int64, latency: Int64)? {
        guard let device, alcIsExtensionPresent(device, "ALC_SOFT_device_clock") == ALC_TRUE else { return nil }
        var values: [ALCint64SOFT] = [0, 0]
        alcGetInteger64vSOFT(device, ALCenum(ALC_DEVICE_CLOCK_LATENCY_SOFT), 2, &values)
        return (Int64(values[0]), Int64(values[1]))
    }

    /// Whether the device is still connected (ALC_EXT_disconnect).
    package var isConnected: Bool {
        guard let device else { return false }
        var connected: ALCint = 1
        alcGetIntegerv(device, ALCenum(ALC_CONNECTED), 1, &connected)
        return connected != 0
    }

    /// Mono plus stereo sources the context grants.
    package var maxSources: Int {
        guard let device else { return 0 }
        var mono: ALCint = 0
        var stereo: ALCint = 0
        alcGetIntegerv(device, ALCenum(ALC_MONO_SOURCES), 1, &mono)
        alcGetIntegerv(device, ALCenum(ALC_STEREO_SOURCES), 1, &stereo)
        return Int(mono + stereo)
    }

    /// Whether an ALC or AL extension is present.
    package func hasExtension(_ name: String) -> Bool {
        (try? withContext {
            name.hasPrefix("ALC_")
                ? alcIsExtensionPresent(device, name) == ALC_TRUE : alIsExtensionPresent(name) == AL_TRUE
        }) ?? false
    }

    // MARK: Errors

    /// Throws if the last AL call failed.
    package func check(_ operation: String) throws {
        let error = alGetError()
        guard error != AL_NO_ERROR else { return }
        throw BackbeatError(.openAL, operation: operation, reason: Self.alErrorString(error))
    }

    static func alErrorString(_ error: ALenum) -> String {
        alGetString(error).map { String(cString: $0) } ?? "AL error 0x\(String(error, radix: 16))"
    }

    private static func alcErrorString(_ device: OpaquePointer?) -> String {
        let error = alcGetError(device)
        if error == ALC_NO_ERROR { return "no device could be opened" }
        return alcGetString(device, error).map { String(cString: $0) } ?? "ALC error 0x\(String(error, radix: 16))"
    }

    // MARK: Names

    package func generateSource() throws -> ALuint {
        try withContext("alGenSources") {
            var source: ALuint = 0
            alGenSources(1, &source)
            try check("alGenSources")
            liveSources.insert(source)
            return source
        }
    }

    package func deleteSource(_ source: ALuint) {
        _ = try? withContext {
            guard liveSources.remove(source) != nil else { return }
            var name = source
            alSourceStop(name)
            alSourcei(name, AL_BUFFER, 0)
            alDeleteSources(1, &name)
            _ = alGetError()
        }
    }

    /// Uploads interleaved samples into a new OpenAL buffer (Float32 via
    /// AL_EXT_float32, or Int16), mono or stereo.
    package func generateBuffer<Sample: ALSample>(interleaved samples: [Sample], channels: Int, sampleRate: Int) throws
        -> ALuint
    {
        try withContext("alBufferData") {
            var buffer: ALuint = 0
            alGenBuffers(1, &buffer)
            try check("alGenBuffers")
            liveBuffers.insert(buffer)
            do {
                try upload(interleaved: samples, channels: channels, sampleRate: sampleRate, to: buffer)
            } catch {
                deleteBuffer(buffer)
                throw error
            }
            return buffer
        }
    }

    /// Fills an existing buffer with interleaved samples (used for stream refills).
    package func upload<Sample: ALSample>(
        interleaved samples: [Sample], channels: Int, sampleRate: Int, to buffer: ALuint
    ) throws {
        try withContext("alBufferData") {
            guard channels == 1 || channels == 2 else {
                throw BackbeatError(
                    .unsupportedFormat, operation: "alBufferData",
                    reason: "\(channels)-channel buffers (mono or stereo only)")
            }
            guard (1...Int(Int32.max)).contains(sampleRate) else {
                throw BackbeatError(
                    .unsupportedFormat, operation: "alBufferData", reason: "sample rate \(sampleRate) Hz")
            }
            let format = Sample.alFormat(channels: channels)
            samples.withUnsafeBytes {
                alBufferData(buffer, format, $0.baseAddress, ALsizei($0.count), ALsizei(sampleRate))
            }
            try check("alBufferData")
        }
    }

    package func deleteBuffer(_ buffer: ALuint) {
        _ = try? withContext {
            guard liveBuffers.remove(buffer) != nil else { return }
            var name = buffer
            alDeleteBuffers(1, &name)
            _ = alGetError()
        }
    }

    // MARK: Listener

    /// Places the context's listener at `position` (metres), facing `forward`
    /// with `up` overhead (AL_POSITION, AL_ORIENTATION). The vectors are
    /// (x, y, z) triples, unit length and perpendicular.
    package func setListener(
        position: (Float, Float, Float), forward: (Float, Float, Float),
        up: (Float, Float, Float), velocity: (Float, Float, Float) = (0, 0, 0)
    ) throws {
        ALRampedWrites.note()
        try withContext("alListener") {
            alListener3f(AL_POSITION, position.0, position.1, position.2)
            alListener3f(AL_VELOCITY, velocity.0, velocity.1, velocity.2)
            var orientation: [ALfloat] = [forward.0, forward.1, forward.2, up.0, up.1, up.2]
            alListenerfv(AL_ORIENTATION, &orientation)
            _ = alGetError()
        }
    }

    /// The distance models Backbeat uses (each clamped between the reference
    /// and maximum distances).
    package enum DistanceModel: Sendable {
        case inverse, linear, exponential

        /// The clamped model's OpenAL name.
        var alValue: ALint {
            switch self {
            case .inverse: AL_INVERSE_DISTANCE_CLAMPED
            case .linear: AL_LINEAR_DISTANCE_CLAMPED
            case .exponential: AL_EXPONENT_DISTANCE_CLAMPED
            }
        }
    }

    /// Sets the context's Doppler factor (0 turns the shift off) and speed of
    /// sound in metres per second (alDopplerFactor, alSpeedOfSound).
    package func setDoppler(factor: Float, speedOfSound: Float) throws {
        try withContext("alDopplerFactor") {
            alDopplerFactor(factor)
            alSpeedOfSound(speedOfSound)
            _ = alGetError()
        }
    }

    /// Whether the device renders through an HRTF now (ALC_HRTF_SOFT).
    package var isHRTFEnabled: Bool {
        guard let device, context != nil else { return false }
        var value: ALCint = 0
        alcGetIntegerv(device, ALCenum(ALC_HRTF_SOFT), 1, &value)
        return value == ALC_TRUE
    }

    /// What a device is asked to do about HRTF (the ALC_HRTF_SOFT attribute).
    package enum HRTFRequest: Sendable {
        case off, on
        /// ALC_DONT_CARE_SOFT: OpenAL Soft decides (on when the output reports headphones).
        case automatic
    }

    /// Why the device renders with or without an HRTF (ALC_HRTF_STATUS_SOFT).
    package enum HRTFStatus: Sendable {
        case disabled, enabled, denied, required, headphonesDetected, unsupportedFormat
    }

    /// The device's HRTF status now.
    package var hrtfStatus: HRTFStatus {
        guard let device, context != nil else { return .disabled }
        var value: ALCint = 0
        alcGetIntegerv(device, ALCenum(ALC_HRTF_STATUS_SOFT), 1, &value)
        switch value {
        case ALC_HRTF_ENABLED_SOFT: return .enabled
        case ALC_HRTF_DENIED_SOFT: return .denied
        case ALC_HRTF_REQUIRED_SOFT: return .required
        case ALC_HRTF_HEADPHONES_DETECTED_SOFT: return .headphonesDetected
        case ALC_HRTF_UNSUPPORTED_FORMAT_SOFT: return .unsupportedFormat
        default: return .disabled
        }
    }

    /// The HRTF data sets OpenAL Soft offers this device, in its order
    /// (ALC_NUM_HRTF_SPECIFIERS_SOFT, alcGetStringiSOFT). The index of a name
    /// is its ALC_HRTF_ID_SOFT.
    package var hrtfDataSetNames: [String] {
        guard let device, context != nil else { return [] }
        var count: ALCint = 0
        alcGetIntegerv(device, ALCenum(ALC_NUM_HRTF_SPECIFIERS_SOFT), 1, &count)
        // Bounded: a library that reports nonsense gives no list, not a trap.
        guard count > 0, count <= 1024 else { return [] }
        return (0..<count).compactMap { index in
            alcGetStringiSOFT(device, ALCenum(ALC_HRTF_SPECIFIER_SOFT), index).map { String(cString: $0) }
        }
    }

    /// The name of the HRTF data set in use, while HRTF is on.
    package var hrtfDataSetInUse: String? {
        guard let device, context != nil, isHRTFEnabled else { return nil }
        return alcGetString(device, ALCenum(ALC_HRTF_SPECIFIER_SOFT)).map { String(cString: $0) }
    }

    /// Asks for HRTF rendering on or off by resetting the device with the same
    /// format (alcResetDeviceSOFT, ALC_SOFT_HRTF); sources and buffers stay.
    ///
    /// - Returns: whether HRTF is on afterwards (a device may refuse: not stereo, no HRTF data).
    @discardableResult
    package func setHRTF(_ enabled: Bool) throws -> Bool {
        try setHRTF(enabled ? .on : .off, dataSet: nil)
    }

    /// Resets the device with HRTF asked on, off or left to OpenAL Soft, and
    /// with data set `dataSet` (an index into ``hrtfDataSetNames``; nil for
    /// the default). Sources and buffers stay.
    ///
    /// - Returns: whether HRTF is on afterwards.
    @discardableResult
    package func setHRTF(_ request: HRTFRequest, dataSet: Int?) throws -> Bool {
        let hrtf: ALCint
        switch request {
        case .off: hrtf = ALCint(ALC_FALSE)
        case .on: hrtf = ALCint(ALC_TRUE)
        case .automatic: hrtf = ALCint(ALC_DONT_CARE_SOFT)
        }
        try reset(hrtf: hrtf, dataSet: dataSet)
        return isHRTFEnabled
    }

    /// Resets the device asking for `count` auxiliary sends per source
    /// (clamped to 0...2) instead of Backbeat's 2, with HRTF as it is;
    /// sources and buffers stay, sends past the new count are dropped. For
    /// checking what Backbeat does on a device that grants fewer sends.
    ///
    /// - Returns: the sends granted.
    @discardableResult
    package func requestAuxiliarySends(_ count: Int) throws -> Int {
        let hrtf = isHRTFEnabled ? ALCint(ALC_TRUE) : ALCint(ALC_FALSE)
        auxiliarySendRequest = ALCint(min(max(count, 0), Int(Self.requestedAuxiliarySends)))
        try reset(hrtf: hrtf, dataSet: nil)
        return auxiliarySendCount
    }

    /// Resets the device (alcResetDeviceSOFT) with its format, the sends asked
    /// for, HRTF as `hrtf` asks and data set `dataSet` (an index into
    /// ``hrtfDataSetNames``; nil for the default). Sources and buffers stay.
    private func reset(hrtf: ALCint, dataSet: Int?) throws {
        guard let device, context != nil else { throw BackbeatError(.engineShutDown, operation: "alcResetDeviceSOFT") }
        ALRampedWrites.note()
        defer { auxiliarySendCount = grantedAuxiliarySends() }
        var attributes = Self.contextAttributes(hrtf: hrtf, sends: auxiliarySendRequest)
        if let dataSet { attributes += [ALCint(ALC_HRTF_ID_SOFT), ALCint(clamping: dataSet)] }
        attributes += formatAttributes + [0]
        guard alcResetDeviceSOFT(device, attributes) == ALC_TRUE else {
            throw BackbeatError(
                .deviceUnavailable, operation: "alcResetDeviceSOFT", reason: Self.alcErrorString(device))
        }
    }

    // MARK: Batching

    /// Applies every source change made in `body` at once (AL_SOFT_deferred_updates).
    package func batch<T>(_ body: () throws -> T) throws -> T {
        try withContext {
            alDeferUpdatesSOFT()
            defer { alProcessUpdatesSOFT() }
            return try body()
        }
    }

    /// Holds back every source change from now until ``processUpdates()``
    /// (the context's deferral, whichever thread makes the changes).
    package func deferUpdates() throws {
        try withContext("alDeferUpdatesSOFT") { alDeferUpdatesSOFT() }
    }

    /// Applies every change held back since ``deferUpdates()`` at once.
    package func processUpdates() {
        _ = try? withContext { alProcessUpdatesSOFT() }
    }

    // MARK: Strings

    /// OpenAL's version, renderer and vendor strings.
    package var versionDescription: String {
        (try? withContext {
            let version = alGetString(AL_VERSION).map { String(cString: $0) } ?? "?"
            let renderer = alGetString(AL_RENDERER).map { String(cString: $0) } ?? "?"
            return "\(version) (\(renderer))"
        }) ?? "unknown"
    }

    /// Names of the playback devices OpenAL can enumerate.
    package static func playbackDeviceNames() -> [String] {
        ALLog.prepare()
        let all = alcIsExtensionPresent(nil, "ALC_ENUMERATE_ALL_EXT") == ALC_TRUE
        guard let list = alcGetString(nil, ALCenum(all ? ALC_ALL_DEVICES_SPECIFIER : ALC_DEVICE_SPECIFIER)) else {
            return []
        }
        var names: [String] = []
        var cursor = list
        while cursor.pointee != 0 {
            let name = String(cString: cursor)
            names.append(name)
            cursor += name.utf8.count + 1
        }
        return names
    }
}

/// A sample type OpenAL buffers take: Float32 (AL_EXT_float32) or Int16.
package protocol ALSample {
    /// The buffer format for `channels` (1 or 2) interleaved channels.
    static func alFormat(channels: Int) -> ALenum
}

extension Float: ALSample {
    package static func alFormat(channels: Int) -> ALenum {
        ALenum(channels == 1 ? AL_FORMAT_MONO_FLOAT32 : AL_FORMAT_STEREO_FLOAT32)
    }
}

extension Int16: ALSample {
    package static func alFormat(channels: Int) -> ALenum { channels == 1 ? AL_FORMAT_MONO16 : AL_FORMAT_STEREO16 }
}
