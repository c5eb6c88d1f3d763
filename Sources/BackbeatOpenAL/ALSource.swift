import COpenAL

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

/// An OpenAL source name with the calls Backbeat makes on it.
///
/// Call these only inside ``ALDevice/withContext(_:_:)`` or
/// ``ALDevice/batch(_:)``: they assume the owning device's context is current.
package struct ALSource: Hashable, Sendable {
    package let name: ALuint

    package init(name: ALuint) { self.name = name }

    package enum State: Equatable { case initial, playing, paused, stopped }

    package var state: State {
        var value: ALint = 0
        alGetSourcei(name, AL_SOURCE_STATE, &value)
        switch value {
        case AL_PLAYING: return .playing
        case AL_PAUSED: return .paused
        case AL_STOPPED: return .stopped
        default: return .initial
        }
    }

    package func setGain(_ gain: Float) {
        ALRampedWrites.note()
        alSourcef(name, AL_GAIN, gain)
    }
    package func setPitch(_ pitch: Float) { alSourcef(name, AL_PITCH, pitch) }
    package func setLooping(_ looping: Bool) { alSourcei(name, AL_LOOPING, looping ? 1 : 0) }

    /// Resets a source to a known, non-spatial state: listener-relative at the
    /// origin, no distance attenuation, gain 1, pitch 1, not looping, no buffer.
    package func reset() {
        ALRampedWrites.note()
        alSourceRewind(name)
        alSourcei(name, AL_BUFFER, 0)
        alSourcei(name, AL_SOURCE_RELATIVE, 1)
        alSource3f(name, AL_POSITION, 0, 0, 0)
        alSourcef(name, AL_ROLLOFF_FACTOR, 0)
        alSourcef(name, AL_GAIN, 1)
        alSourcef(name, AL_PITCH, 1)
        alSourcei(name, AL_LOOPING, 0)
        setStereoAngles(left: Float.pi / 6, right: -Float.pi / 6)
        _ = alGetError()
    }

    /// Empties a source for its next sound: rewound, no buffer, not looping.
    /// The caller then sets placement (``setPan(_:)`` or ``setPosition(x:y:z:referenceDistance:maximumDistance:rolloffFactor:)``),
    /// pitch and gain, which with this cover every property Backbeat sets:
    /// half the calls of ``reset()``, on every `play()`.
    package func clearForReuse() {
        alSourceRewind(name)
        alSourcei(name, AL_BUFFER, 0)
        alSourcei(name, AL_LOOPING, 0)
    }

    /// Pans from -1 (left) to 1 (right). Mono sounds move on a half circle in
    /// front of the listener; stereo sounds rotate both channel angles
    /// (AL_EXT_STEREO_ANGLES), so they pan too.
    package func setPan(_ pan: Float) {
        ALRampedWrites.note()
        alSourcei(name, AL_SOURCE_RELATIVE, 1)
        alSourcef(name, AL_ROLLOFF_FACTOR, 0)
        alSourcei(name, AL_SOURCE_SPATIALIZE_SOFT, AL_AUTO_SOFT)
        alSourcei(name, AL_DIRECT_CHANNELS_SOFT, AL_FALSE)
        alSourcef(name, AL_SOURCE_RADIUS, 0)
        let angle = pan * Float.pi / 2
        alSource3f(name, AL_POSITION, sin(angle), 0, -cos(angle))
        alSource3f(name, AL_VELOCITY, 0, 0, 0)  // 2D: no Doppler shift
        alSource3f(name, AL_DIRECTION, 0, 0, 0)  // 2D: no cone
        let spread = Float.pi / 6 * (1 - abs(pan))
        // AL_EXT_STEREO_ANGLES counts counter-clockwise (left positive), the
        // pan clockwise (right positive, as x = sin(angle) above): the left
        // channel sits `spread` to the left of the pan, at -(angle - spread).
        setStereoAngles(left: -(angle - spread), right: -(angle + spread))
    }

    /// AL_EXT_STEREO_ANGLES, from two values on the stack (no array: this
    /// runs on every `play()`).
    private func setStereoAngles(left: ALfloat, right: ALfloat) {
        var angles = (left, right)
        withUnsafeMutableBytes(of: &angles) { raw in
            alSourcefv(name, AL_STEREO_ANGLES, raw.baseAddress!.assumingMemoryBound(to: ALfloat.self))
        }
    }

    /// Places the source in the world at (x, y, z) metres: not listener-relative,
    /// attenuated by `distanceModel` (AL_EXT_source_distance_model) with the given
    /// reference distance, maximum distance and rolloff. Stereo sounds are placed
    /// too (AL_SOFT_source_spatialize). A `radius` above zero makes it a sphere
    /// of sound (AL_EXT_SOURCE_RADIUS): heard from all around inside it.
    package func setPosition(
        x: Float, y: Float, z: Float, distanceModel: ALDevice.DistanceModel = .inverse, referenceDistance: Float = 1,
        maximumDistance: Float = .greatestFiniteMagnitude, rolloffFactor: Float = 1,
        velocity: (x: Float, y: Float, z: Float) = (0, 0, 0), radius: Float = 0
    ) {
        ALRampedWrites.note()
        alSourcei(name, AL_SOURCE_RELATIVE, 0)
        alSourcei(name, AL_SOURCE_SPATIALIZE_SOFT, AL_TRUE)
        alSourcei(name, AL_DIRECT_CHANNELS_SOFT, AL_FALSE)
        alSourcei(name, AL_DISTANCE_MODEL, distanceModel.alValue)
        alSourcef(name, AL_SOURCE_RADIUS, radius)
        alSourcef(name, AL_ROLLOFF_FACTOR, rolloffFactor)
        alSourcef(name, AL_REFERENCE_DISTANCE, referenceDistance)
        alSourcef(name, AL_MAX_DISTANCE, maximumDistance)
        alSource3f(name, AL_POSITION, x, y, z)
        alSource3f(name, AL_VELOCITY, velocity.x, velocity.y, velocity.z)
    }

    /// Sends the sound's channels straight to the outputs, left to left and
    /// right to right (mono to both): no panning, no HRTF, no distance
    /// (AL_DIRECT_CHANNELS_SOFT with AL_SOURCE_SPATIALIZE_SOFT off).
    package func setPassThrough() {
        ALRampedWrites.note()
        alSourcei(name, AL_SOURCE_RELATIVE, 1)
        alSourcef(name, AL_ROLLOFF_FACTOR, 0)
        alSourcei(name, AL_SOURCE_SPATIALIZE_SOFT, AL_FALSE)
        alSourcei(name, AL_DIRECT_CHANNELS_SOFT, AL_TRUE)
        alSourcef(name, AL_SOURCE_RADIUS, 0)
        alSource3f(name, AL_POSITION, 0, 0, 0)
        alSource3f(name, AL_VELOCITY, 0, 0, 0)
        alSource3f(name, AL_DIRECTION, 0, 0, 0)
    }

    /// Moves a source already placed by ``setPosition(x:y:z:referenceDistance:maximumDistance:rolloffFactor:velocity:)``
    /// to (x, y, z): one call, for games that move hundreds of sources a frame.
    package func move(x: Float, y: Float, z: Float) {
        ALRampedWrites.note()
        alSource3f(name, AL_POSITION, x, y, z)
    }

    /// A positioned source's facing and sound cone (AL_DIRECTION, AL_CONE_*,
    /// and EFX's AL_CONE_OUTER_GAINHF); a zero direction is omnidirectional.
    package func setCone(
        direction: (x: Float, y: Float, z: Float), innerAngle: Float, outerAngle: Float, outerGain: Float,
        outerHighFrequencyGain: Float
    ) {
        ALRampedWrites.note()
        alSourcef(name, AL_CONE_INNER_ANGLE, innerAngle)
        alSourcef(name, AL_CONE_OUTER_ANGLE, outerAngle)
        alSourcef(name, AL_CONE_OUTER_GAIN, outerGain)
        alSourcef(name, AL_CONE_OUTER_GAINHF, outerHighFrequencyGain)
        alSource3f(name, AL_DIRECTION, direction.x, direction.y, direction.z)
    }

    package func attach(_ buffer: ALuint) { alSourcei(name, AL_BUFFER, ALint(bitPattern: buffer)) }
    package func play() { alSourcePlay(name) }
    package func pause() { alSourcePause(name) }
    package func stop() { alSourceStop(name) }
    package func rewind() { alSourceRewind(name) }

    package var sampleOffset: Int {
        get {
            var v: ALint = 0
            alGetSourcei(name, AL_SAMPLE_OFFSET, &v)
            return Int(v)
        }
        nonmutating set { alSourcei(name, AL_SAMPLE_OFFSET, ALint(newValue)) }
    }

    /// The play position in sample frames and the device clock (ns) at that
    /// moment, read together (`AL_SAMPLE_OFFSET_CLOCK_SOFT`, AL_SOFT_source_latency).
    package var sampleOffsetWithClock: (frames: Int, clockNanoseconds: Int64) {
        var values: [ALint64SOFT] = [0, 0]
        alGetSourcei64vSOFT(name, AL_SAMPLE_OFFSET_CLOCK_SOFT, &values)
        return (Int(values[0] >> 32), values[1])
    }

    /// The play position in the current buffer with the resampler's fraction
    /// of a sample (OpenAL Soft reports it as a float).
    package var preciseSampleOffset: Double {
        var v: ALfloat = 0
        alGetSourcef(name, AL_SAMPLE_OFFSET, &v)
        return v.isFinite ? Double(v) : 0
    }

    /// Sets the play position to `frames` of the current buffer, fraction
    /// included (OpenAL Soft keeps the fraction for its resampler).
    package func setSampleOffset(_ frames: Double) { alSourcef(name, AL_SAMPLE_OFFSET, Float(frames)) }

    var buffersQueued: Int {
        var v: ALint = 0
        alGetSourcei(name, AL_BUFFERS_QUEUED, &v)
        return Int(v)
    }
    package var buffersProcessed: Int {
        var v: ALint = 0
        alGetSourcei(name, AL_BUFFERS_PROCESSED, &v)
        return Int(v)
    }

    /// Queues one buffer (no array: voices queue copies of a cached sound
    /// one at a time, on the update thread).
    package func queue(_ buffer: ALuint) {
        var name = buffer
        alSourceQueueBuffers(self.name, 1, &name)
    }

    /// Unqueues up to `count` processed buffers and hands each name to `body`,
    /// oldest first. The names live on the stack: refills run every update.
    package func unqueueProcessed(_ count: Int, _ body: (ALuint) -> Void) {
        guard count > 0 else { return }
        withUnsafeTemporaryAllocation(of: ALuint.self, capacity: count) { names in
            names.initialize(repeating: 0)
            alSourceUnqueueBuffers(name, ALsizei(count), names.baseAddress!)
            for buffer in names { body(buffer) }
        }
    }
}

/// An OpenAL buffer name, as the layers above the door hold it.
package typealias ALBufferName = UInt32
