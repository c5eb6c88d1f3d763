import Backbeat
import BackbeatAcoustics
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension DeviceScene {
    /// The device scene with acoustics on: the generated level of the
    /// `acoustics` suite (about 100,000 triangles, 20 rooms), the scene's 64
    /// looping voices placed in it and its song streamed, and, on this
    /// thread as a game's frame loop would, the listener walking the level
    /// and ``AcousticSimulation/update()`` every 20 ms. The listener walks
    /// (1.4 m/s), so every voice's path is worked out again every few frames
    /// (``AcousticSimulation/movementThreshold``). Returns the song's underruns.
    ///
    /// - Parameters:
    ///   - seconds: How long the scene plays.
    ///   - latency: The device's period size and count.
    ///   - song: The song to stream.
    static func playAcoustics(seconds: Int, latency: AudioEngine.OutputLatency, song: URL) throws -> Result {
        // The level is built before the device opens: the figure is about playing, not loading.
        let scene = try AcousticScene(level: AcousticsLevelGenerator.level(triangles: 100_000, seed: 33))
        let engine = try AudioEngine(output: .device(latency: latency))
        defer { engine.shutdown() }
        let mix = MixScene(voiceCount: 64)
        let sounds = try mix.sounds.enumerated().map {
            try SoundEffect(buffer: $0.element, name: "sound\($0.offset)", engine: engine)
        }
        let player = try QueuePlayer(engine: engine, items: [PlayerItem(asset: AudioAsset(url: song))])
        player.volume = 0.3
        player.play()
        let places = AcousticsSuite.segments(count: mix.voices.count, seed: 37).map(\.0)
        let voices = zip(mix.voices, places).map { voice, p in
            sounds[voice.sound].play(
                at: nil, volume: voice.gain * 0.3, position: Audio3DPoint(x: p.x, y: p.y, z: p.z), looping: .forever)
        }
        let simulation = AcousticSimulation(engine: engine, scene: scene)
        let frames = seconds * 50
        let width = Float(AcousticsLevelGenerator.columns) * AcousticsLevelGenerator.roomSize
        let depth = Float(AcousticsLevelGenerator.rows) * AcousticsLevelGenerator.roomSize
        let start = monotonicNanoseconds()
        for frame in 0..<frames {
            // The listener walks the level's diagonal and back at 1.4 m/s (2.8 cm a frame).
            let diagonal = (width * width + depth * depth).squareRoot()
            let walked = (Float(frame) * 0.028).truncatingRemainder(dividingBy: 2 * diagonal) / diagonal
            let along = walked < 1 ? walked : 2 - walked
            engine.listenerPosition = Audio3DPoint(x: 1 + along * (width - 2), y: 1.7, z: 1 + along * (depth - 2))
            simulation.update()
            let next = start + UInt64(frame + 1) * 20_000_000
            let now = monotonicNanoseconds()
            if next > now { sleepMicroseconds((next - now) / 1_000) }
        }
        withExtendedLifetime((sounds, voices)) {}
        return Result(underruns: player.underrunCount, latencyMilliseconds: .nan)
    }
}
