import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport
import COpenAL

/// Raw OpenAL, driven the way a game without Backbeat would drive it: the
/// reference side of the `mix` and `trigger` benchmarks.
///
/// This is deliberately the raw baseline: it imports COpenAL and makes its own
/// `al*` calls, outside the door every other part of Backbeat goes through.
/// It borrows the door only to open the device and upload buffers, so both
/// sides of a comparison start from the same device and the same data.
///
/// It opens its own loopback device with the same attributes as an offline
/// ``AudioEngine`` (output limiter on, no HRTF), uploads sounds into plain
/// buffers, and gives each voice a source set up with direct `al*` calls:
/// listener-relative, no distance attenuation, the gain and pan, and
/// `AL_LOOPING` for loops. No pool, no update step, no queueing. Pan uses the
/// same geometry as Backbeat's voices, so the two sides render the same scene.
///
/// Not thread-safe: drive one baseline from one thread.
package final class OpenALBaseline {
    private let device: ALDevice
    private var buffers: [ALuint] = []
    private var sources: [ALuint] = []
    /// Output frames per second.
    package let sampleRate: Int
    /// Output channels (interleaved in rendered samples).
    package let channelCount: Int

    /// Opens a loopback device rendering Float32 at `sampleRate` with `channels` channels.
    ///
    /// - Throws: ``BackbeatError`` when OpenAL has no loopback device or refuses the format.
    package init(sampleRate: Int = 48_000, channels: Int = 2) throws {
        device = try ALDevice.openLoopback(sampleRate: sampleRate, channels: channels)
        self.sampleRate = sampleRate
        self.channelCount = channels
    }

    deinit { device.close() }

    /// OpenAL's version and renderer strings, such as `1.1 ALSOFT 1.19.1 (OpenAL Soft)`.
    package var versionDescription: String { device.versionDescription }

    /// Mono plus stereo sources the context grants.
    package var maximumSources: Int { device.maxSources }

    /// Sources alive on this device.
    package var liveSourceCount: Int { (try? device.withContext { device.liveSources.count }) ?? 0 }
    /// Buffers alive on this device.
    package var liveBufferCount: Int { (try? device.withContext { device.liveBuffers.count }) ?? 0 }

    /// Gives every source the same EFX setup as an environment scene: one
    /// effect slot with `reverb`, each source's direct path through `direct`
    /// and its first send to the slot through `send`. Call after the voices are added.
    package func addEnvironment(reverb: ALReverbProperties, direct: ALFilterParameters, send: ALFilterParameters) throws
    {
        let slot = try device.generateEffectSlot()
        try device.withContext {
            try device.loadReverb(reverb, into: slot)
            device.setGain(1, of: slot)
            for source in sources {
                device.setDirectFilter(direct, on: ALSource(name: source))
                device.setSend(0, of: ALSource(name: source), to: slot, filter: send)
            }
        }
    }

    /// Uploads `pcm` into a new buffer and returns its index for ``addVoice(sound:gain:pan:looping:)``.
    package func addSound(_ pcm: PCMBuffer) throws -> Int {
        buffers.append(try device.generateBuffer(pcm))
        return buffers.count - 1
    }

    /// Generates a source for sound `sound` and sets it up (not playing yet).
    /// Returns the voice's index.
    package func addVoice(sound: Int, gain: Float, pan: Float, looping: Bool) throws -> Int {
        let source = try device.generateSource()
        let buffer = buffers[sound]
        try device.withContext("OpenALBaseline.addVoice") {
            alSourcei(source, AL_SOURCE_RELATIVE, 1)
            alSourcef(source, AL_ROLLOFF_FACTOR, 0)
            ALSource(name: source).setPan(pan)
            alSourcef(source, AL_GAIN, gain)
            alSourcei(source, AL_LOOPING, looping ? 1 : 0)
            alSourcei(source, AL_BUFFER, ALint(bitPattern: buffer))
            try device.check("OpenALBaseline.addVoice")
        }
        sources.append(source)
        return sources.count - 1
    }

    /// Generates a source for sound `sound` placed in the world at `position`
    /// (not listener-relative, the context's inverse-distance-clamped model
    /// with reference distance 1, spatialized), looping, at `gain`; not
    /// playing yet. Returns the voice's index.
    package func addPlacedVoice(sound: Int, gain: Float, position: (Float, Float, Float)) throws -> Int {
        let source = try device.generateSource()
        let buffer = buffers[sound]
        try device.withContext("OpenALBaseline.addPlacedVoice") {
            alSourcei(source, AL_SOURCE_RELATIVE, 0)
            alSourcei(source, AL_SOURCE_SPATIALIZE_SOFT, AL_TRUE)
            alSourcef(source, AL_REFERENCE_DISTANCE, 1)
            alSourcef(source, AL_ROLLOFF_FACTOR, 1)
            alSource3f(source, AL_POSITION, position.0, position.1, position.2)
            alSourcef(source, AL_GAIN, gain)
            alSourcei(source, AL_LOOPING, 1)
            alSourcei(source, AL_BUFFER, ALint(bitPattern: buffer))
            try device.check("OpenALBaseline.addPlacedVoice")
        }
        sources.append(source)
        return sources.count - 1
    }

    /// Moves voice `i` to `positions[i]` for every voice: one `alSource3f`
    /// each, as a game moving its sources by hand does every frame.
    package func move(to positions: UnsafeBufferPointer<(Float, Float, Float)>) {
        _ = try? device.withContext {
            for (i, source) in sources.enumerated() where i < positions.count {
                let p = positions[i]
                alSource3f(source, AL_POSITION, p.0, p.1, p.2)
            }
        }
    }

    /// Asks the device for HRTF rendering (ALC_SOFT_HRTF); returns whether it is on.
    package func setHRTF(_ enabled: Bool) throws -> Bool { try device.setHRTF(enabled) }

    /// `alSourcePlay` on voice `index`: nothing else, so timing it measures OpenAL alone.
    package func play(_ index: Int) {
        let source = sources[index]
        _ = try? device.withContext { alSourcePlay(source) }
    }

    /// Plays every voice, in the order they were added.
    package func playAll() {
        _ = try? device.withContext { for source in sources { alSourcePlay(source) } }
    }

    /// Whether voice `index` is playing.
    package func isPlaying(_ index: Int) -> Bool {
        let source = sources[index]
        return (try? device.withContext { ALSource(name: source).state == .playing }) ?? false
    }

    /// Renders `frames` interleaved Float32 frames into `samples` from index 0,
    /// in calls of at most `chunk` frames. `samples` must hold `frames * channelCount` floats.
    package func render(frames: Int, into samples: inout [Float], chunk: Int) {
        var done = 0
        while done < frames {
            let n = min(chunk, frames - done)
            device.render(frames: n, into: &samples, at: done * channelCount)
            done += n
        }
    }

    /// Renders `frames` frames and returns them interleaved.
    package func render(frames: Int, chunk: Int) -> [Float] {
        var samples = [Float](repeating: 0, count: frames * channelCount)
        render(frames: frames, into: &samples, chunk: chunk)
        return samples
    }

    /// Deletes every source and buffer, then the device. Idempotent.
    package func close() {
        for source in sources { device.deleteSource(source) }
        for buffer in buffers { device.deleteBuffer(buffer) }
        sources.removeAll()
        buffers.removeAll()
        device.close()
    }
}
