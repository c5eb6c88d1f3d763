// The same operations through raw OpenAL Soft, with no engine: the reference
// the Backbeat figures are read against. OpenAL Soft 1.19.1 allocates a list
// node in every alSourceQueueBuffers call, so that allocation shows here too.
import Benchmark
import COpenALRaw
import Foundation

/// A loopback device (48 kHz stereo float, rendered on demand), a context,
/// a 0.25 s sine in one buffer, streaming buffers and one source for each job.
final class RawScene: @unchecked Sendable {
    let device: OpaquePointer
    let context: OpaquePointer
    var hit: ALuint = 0
    var source: ALuint = 0
    var stream: ALuint = 0
    var streamBuffers = [ALuint](repeating: 0, count: 4)
    let chunk: [Float]
    var out = [Float](repeating: 0, count: 1_024 * 2)

    init() {
        device = alcLoopbackOpenDeviceSOFT(nil)!
        var attributes: [ALCint] = [
            ALC_FREQUENCY, 48_000, ALC_FORMAT_CHANNELS_SOFT, ALC_STEREO_SOFT,
            ALC_FORMAT_TYPE_SOFT, ALC_FLOAT_SOFT, 0,
        ]
        context = alcCreateContext(device, &attributes)!
        alcMakeContextCurrent(context)
        let sine = (0..<12_000).map { Float(sin(Double($0) * 2 * .pi * 440 / 48_000)) * 0.5 }
        alGenBuffers(1, &hit)
        alBufferData(hit, AL_FORMAT_MONO_FLOAT32, sine, ALsizei(sine.count * 4), 48_000)
        alGenSources(1, &source)
        alGenSources(1, &stream)
        alGenBuffers(4, &streamBuffers)
        chunk = (0..<(4_000 * 2)).map { Float(sin(Double($0 / 2) * 2 * .pi * 330 / 48_000)) * 0.5 }
        for buffer in streamBuffers {
            alBufferData(buffer, AL_FORMAT_STEREO_FLOAT32, chunk, ALsizei(chunk.count * 4), 48_000)
        }
        alSourceQueueBuffers(stream, 4, &streamBuffers)
        alSourcePlay(stream)
    }

    func render(frames: Int = 256) {
        precondition(frames <= 1_024)
        out.withUnsafeMutableBytes { alcRenderSamplesSOFT(device, $0.baseAddress, ALCsizei(frames)) }
    }

    /// The scene a benchmark's setup made; its teardown closes the device
    /// (the harness keeps the setup's result alive past the run).
    nonisolated(unsafe) static var current: RawScene?

    func close() {
        alcMakeContextCurrent(nil)
        alcDestroyContext(context)
        alcCloseDevice(device)
    }
}

private func makeScene() -> RawScene {
    let scene = RawScene()
    RawScene.current = scene
    return scene
}

private func closeScene() {
    RawScene.current?.close()
    RawScene.current = nil
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        warmupIterations: 100,
        maxDuration: .seconds(3),
        maxIterations: 20_000,
        // `make bench-micro` fails on one allocation more than the committed
        // baseline at the median or p99, or a median 25 % slower (these
        // machines are shared: time is compared loosely, allocations exactly).
        thresholds: [
            .mallocCountTotal: .init(absolute: [.p50: 0, .p99: 0]),
            .wallClock: .init(relative: [.p50: 25]),
        ]
    )

    Benchmark("Raw OpenAL: queue a loaded buffer on a source and play it") { benchmark, scene in
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            alSourceQueueBuffers(scene.source, 1, &scene.hit)
            alSourcePlay(scene.source)
            benchmark.stopMeasurement()
            alSourceStop(scene.source)
            alSourcei(scene.source, AL_BUFFER, 0)
            scene.render()
        }
    } setup: {
        makeScene()
    } teardown: {
        closeScene()
    }

    Benchmark("Raw OpenAL: take back a played stream buffer, refill it and queue it") { benchmark, scene in
        var name: ALuint = 0
        for _ in benchmark.scaledIterations {
            // Render until a buffer has played, then do what a streamer does.
            var processed: ALint = 0
            while processed == 0 {
                scene.render(frames: 1_024)
                alGetSourcei(scene.stream, AL_BUFFERS_PROCESSED, &processed)
            }
            benchmark.startMeasurement()
            alSourceUnqueueBuffers(scene.stream, 1, &name)
            scene.chunk.withUnsafeBytes {
                alBufferData(name, AL_FORMAT_STEREO_FLOAT32, $0.baseAddress, ALsizei($0.count), 48_000)
            }
            alSourceQueueBuffers(scene.stream, 1, &name)
            benchmark.stopMeasurement()
        }
    } setup: {
        makeScene()
    } teardown: {
        closeScene()
    }
}
