import BackbeatSupport
import COpenAL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The door's capture side (ALC_EXT_CAPTURE): a capture device that fills a
/// ring buffer of `bufferFrames` frames once started, read from by its owner.
///
/// A capture device does not lock: its owner serialises every call.
package final class ALCaptureDevice: @unchecked Sendable {
    // @unchecked: the owner serialises every call (see above).
    private var device: OpaquePointer?
    /// The device's name as OpenAL reports it (ALC_CAPTURE_DEVICE_SPECIFIER).
    package let name: String
    package let sampleRate: Int
    package let channelCount: Int
    /// Whether samples are Float32 (AL_EXT_float32) rather than Int16.
    package let isFloat: Bool
    /// The ring buffer's size in frames, as asked of OpenAL.
    package let bufferFrames: Int

    /// The largest ring buffer Backbeat asks for: 10 s at 192 kHz.
    package static let maximumBufferFrames = 1_920_000

    private init(device: OpaquePointer, sampleRate: Int, channelCount: Int, isFloat: Bool, bufferFrames: Int) {
        self.device = device
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.isFloat = isFloat
        self.bufferFrames = bufferFrames
        self.name = alcGetString(device, ALCenum(ALC_CAPTURE_DEVICE_SPECIFIER)).map { String(cString: $0) } ?? "unknown"
    }

    deinit { close() }

    /// Names of the capture devices OpenAL can enumerate.
    package static func deviceNames() -> [String] {
        ALLog.prepare()
        ALConfig.applyApplicationIdentity()
        guard let list = alcGetString(nil, ALCenum(ALC_CAPTURE_DEVICE_SPECIFIER)) else { return [] }
        var names: [String] = []
        var cursor = list
        // A list is NUL-separated and ends with an empty name; bound it all the same.
        while cursor.pointee != 0, names.count < 4_096 {
            let name = String(cString: cursor)
            names.append(name)
            cursor += strlen(cursor) + 1
        }
        return names
    }

    /// The default capture device's name, nil when OpenAL reports none.
    package static func defaultDeviceName() -> String? {
        ALLog.prepare()
        ALConfig.applyApplicationIdentity()
        guard let name = alcGetString(nil, ALCenum(ALC_CAPTURE_DEFAULT_DEVICE_SPECIFIER)) else { return nil }
        let text = String(cString: name)
        return text.isEmpty ? nil : text
    }

    /// Opens a capture device (nil for the default one) with a ring buffer of
    /// `bufferFrames` frames of `channels` (1 or 2) channels.
    ///
    /// - Throws: ``BackbeatError`` `.invalidArgument` for a format out of
    ///   range, `.captureUnavailable` when no device could be opened.
    package static func open(
        name: String?, sampleRate: Int, channels: Int, float: Bool, bufferFrames: Int
    ) throws -> ALCaptureDevice {
        guard sampleRate >= 8_000, sampleRate <= 192_000 else {
            throw BackbeatError(
                .invalidArgument, operation: "alcCaptureOpenDevice",
                reason: "sample rate \(sampleRate) Hz (8000 to 192000 are supported)")
        }
        guard channels == 1 || channels == 2 else {
            throw BackbeatError(
                .invalidArgument, operation: "alcCaptureOpenDevice",
                reason: "\(channels) channels (1 or 2 are supported)")
        }
        guard bufferFrames >= 1, bufferFrames <= maximumBufferFrames else {
            throw BackbeatError(
                .invalidArgument, operation: "alcCaptureOpenDevice",
                reason: "a buffer of \(bufferFrames) frames (1 to \(maximumBufferFrames) are supported)")
        }
        ALLog.prepare()
        ALConfig.applyApplicationIdentity()
        let format: ALenum =
            float
            ? (channels == 1 ? ALenum(AL_FORMAT_MONO_FLOAT32) : ALenum(AL_FORMAT_STEREO_FLOAT32))
            : (channels == 1 ? AL_FORMAT_MONO16 : AL_FORMAT_STEREO16)
        // Drop an ALC error left by an earlier call, so the one read below is this open's.
        _ = alcGetError(nil)
        let opened: OpaquePointer? =
            name.map { alcCaptureOpenDevice($0, ALCuint(sampleRate), format, ALCsizei(bufferFrames)) }
            ?? alcCaptureOpenDevice(nil, ALCuint(sampleRate), format, ALCsizei(bufferFrames))
        guard let opened else {
            let error = alcGetError(nil)
            let what = name.map { "\"\($0)\"" } ?? "default capture device"
            let why: String
            switch error {
            case ALC_INVALID_VALUE where name != nil:
                why = "no capture device has that name"
            case ALC_INVALID_ENUM:
                why = "\(float ? "float32" : "16-bit") \(channels == 1 ? "mono" : "stereo") is not supported"
            default:
                why = "no OpenAL backend could open it (no sound server or capture card)"
            }
            throw BackbeatError(.captureUnavailable, operation: "alcCaptureOpenDevice", reason: "\(what): \(why)")
        }
        return ALCaptureDevice(
            device: opened, sampleRate: sampleRate, channelCount: channels, isFloat: float, bufferFrames: bufferFrames)
    }

    /// Starts filling the ring buffer.
    package func start() {
        guard let device else { return }
        alcCaptureStart(device)
    }

    /// Stops filling the ring buffer; what it holds can still be read.
    package func stop() {
        guard let device else { return }
        alcCaptureStop(device)
    }

    /// Frames ready to read (ALC_CAPTURE_SAMPLES), bounded to the ring
    /// buffer's size; nil when the device was lost (ALC_EXT_disconnect).
    package func availableFrames() -> Int? {
        guard let device else { return nil }
        var connected: ALCint = 1
        if alcIsExtensionPresent(device, "ALC_EXT_disconnect") == ALC_TRUE {
            alcGetIntegerv(device, ALCenum(ALC_CONNECTED), 1, &connected)
        }
        var count: ALCint = 0
        alcGetIntegerv(device, ALCenum(ALC_CAPTURE_SAMPLES), 1, &count)
        if connected == 0, count <= 0 { return nil }
        return Int(min(max(count, 0), ALCint(bufferFrames)))
    }

    /// Reads `frames` interleaved Float32 frames (a float device); `frames`
    /// must not exceed ``availableFrames()``.
    package func readFloats(frames: Int) -> [Float] {
        guard let device, isFloat, frames > 0 else { return [] }
        let count = min(frames, bufferFrames)
        var samples = [Float](repeating: 0, count: count * channelCount)
        samples.withUnsafeMutableBytes { alcCaptureSamples(device, $0.baseAddress, ALCsizei(count)) }
        return samples
    }

    /// Reads `frames` interleaved Int16 frames (a 16-bit device); `frames`
    /// must not exceed ``availableFrames()``.
    package func readInt16s(frames: Int) -> [Int16] {
        guard let device, !isFloat, frames > 0 else { return [] }
        let count = min(frames, bufferFrames)
        var samples = [Int16](repeating: 0, count: count * channelCount)
        samples.withUnsafeMutableBytes { alcCaptureSamples(device, $0.baseAddress, ALCsizei(count)) }
        return samples
    }

    /// Stops and closes the device. Idempotent.
    package func close() {
        guard let device else { return }
        alcCaptureStop(device)
        alcCaptureCloseDevice(device)
        self.device = nil
    }
}
