import Backbeat
import BackbeatTesting

/// A constant 0.5 (one mono second of it, `TestSignal.constant`) looping
/// forever on `engine`'s effects bus: each rendered sample is 0.5 times the
/// voice's gain, its bus's gain and its pan factor, so a test reads gains
/// straight off the output.
package func playLoopingConstant(on engine: AudioEngine) throws -> Voice {
    let sound = try SoundEffect(buffer: TestSignal.constant(0.5, frames: 48_000), name: "dc", engine: engine)
    return sound.play(looping: .forever)
}

/// One second of a sine at `frequency` (`TestSignal.sine`, amplitude 0.5) as
/// a sound effect named "tone" on `engine`: the tone most tests play, looped
/// or placed.
package func toneEffect(_ frequency: Double, on engine: AudioEngine) throws -> SoundEffect {
    try SoundEffect(
        buffer: TestSignal.sine(frequency: frequency, duration: MediaTime(seconds: 1)), name: "tone", engine: engine)
}
