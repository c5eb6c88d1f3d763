import BackbeatMedia
import BackbeatOpenAL

extension ALDevice {
    /// Uploads `pcm` into a new OpenAL buffer: Float32 or Int16 as decoded,
    /// planar buffers interleaved first.
    package func generateBuffer(_ pcm: PCMBuffer) throws -> ALBufferName {
        switch pcm.samples {
        case .float32(let samples) where pcm.format.isInterleaved:
            try generateBuffer(
                interleaved: samples, channels: pcm.format.channelCount, sampleRate: pcm.format.sampleRate)
        case .int16(let samples) where pcm.format.isInterleaved:
            try generateBuffer(
                interleaved: samples, channels: pcm.format.channelCount, sampleRate: pcm.format.sampleRate)
        default:
            try generateBuffer(
                interleaved: pcm.interleavedFloats, channels: pcm.format.channelCount,
                sampleRate: pcm.format.sampleRate)
        }
    }

    /// Fills an existing buffer with `pcm` (stream refills).
    package func upload(_ pcm: PCMBuffer, to buffer: ALBufferName) throws {
        switch pcm.samples {
        case .float32(let samples) where pcm.format.isInterleaved:
            try upload(
                interleaved: samples, channels: pcm.format.channelCount, sampleRate: pcm.format.sampleRate, to: buffer)
        case .int16(let samples) where pcm.format.isInterleaved:
            try upload(
                interleaved: samples, channels: pcm.format.channelCount, sampleRate: pcm.format.sampleRate, to: buffer)
        default:
            try upload(
                interleaved: pcm.interleavedFloats, channels: pcm.format.channelCount,
                sampleRate: pcm.format.sampleRate, to: buffer)
        }
    }
}
