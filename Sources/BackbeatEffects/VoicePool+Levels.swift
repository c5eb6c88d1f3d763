import BackbeatEngine
import BackbeatTelemetry

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Bus levels for a monitor, from what each voice plays.
///
/// For every voice that really plays (holds a source, is not paused or
/// fading out; virtual and dormant voices add nothing), the level is read
/// from its sound's ``LevelEnvelope`` (the mean square and peak of each
/// 256-frame block of the decoded sound) over the snapshot's window, ending
/// where the voice is at the snapshot's engine frame (its played count, which
/// the update step keeps by engine time, carried on to that frame: no OpenAL
/// query, which was a lock, a search of the mixer's voices and a few cache
/// misses per voice, ten times a second), at most
/// 128 blocks sampled evenly across the window (at most a second): a loop
/// wraps into its region, a voice that started inside the window counts
/// silence before its start. That mean square is multiplied by the square
/// of the gain OpenAL applies to the source (the voice's volume times its
/// bus chain, fades and ducks included, as the last update step set it;
/// its occlusion and filter's broadband gain; the distance and cone gain of
/// a placed voice) and by the share of the output's channels its panning
/// gives it (OpenAL Soft's panning gains at its pan, or at the side the
/// listener hears a placed voice from, measured), and added to its bus; the engine
/// sums a bus's voices (as uncorrelated signals: powers add) and its
/// children's. The peak is the block's peak times the gain and the louder
/// ear's pan gain.
///
/// Where it differs from what is heard: a 2D scene on stereo speakers
/// reads within a fraction of a dB of the render. Otherwise the figure
/// leaves out what OpenAL does after the source's gain and panning: HRTF
/// (headphones) changes the level with direction and frequency, by several
/// dB; the reverb sends (the environment and bus effects) add their wet
/// signal on top; the voice and bus filters' high- and low-frequency
/// shelves are left out (only their broadband gain counts); the master
/// limiter lowers loud peaks; the Doppler shift and a source radius are
/// ignored; two voices of one sound started together add as correlated
/// signals (up to 3 dB more than the sum of powers says); and the window
/// ends where the source is now, which a device hears one output latency
/// later.
extension VoicePool {
    /// The most envelope blocks a voice's level reads per snapshot.
    static let levelSamples = 128

    /// Adds each really playing voice's level to its bus in `builder`.
    ///
    /// - Parameters:
    ///   - builder: the snapshot under construction (its window sets the span).
    ///   - listener: the engine's listener, for placed voices' distance, cone and side.
    func addLevelsLocked(to builder: TelemetrySnapshotBuilder, listener: Listener) {
        guard let engine else { return }
        let outputRate = engine.sampleRate
        let window = Double(min(max(builder.window, Int64(engine.updateInterval)), Int64(outputRate)))
        let outputChannels = Float(max(1, engine.channelCount))
        let f = listener.forward
        let u = listener.up
        let right = Audio3DPoint(x: f.y * u.z - f.z * u.y, y: f.z * u.x - f.x * u.z, z: f.x * u.y - f.y * u.x)
        for voice in voices {
            guard !voice.record.isDormant, voice.phase == .playing, !voice.userPaused,
                voice.record.source != nil, let bus = voice.bus, case .loaded(let r) = voice.playedLoadState
            else { continue }
            var gain = max(0, voice.record.appliedGain)
            gain *= voice.directGain
            var pan = voice.panValue
            if voice.renderingValue == .stereoPassThrough {
                pan = .nan
            } else if let p = voice.storedPosition {
                gain = placedGain(gain, of: voice, at: p, listener: listener)
                pan = Self.pan(of: p, listener: listener, right: right)
            }
            guard gain > 0 else { continue }
            let played = playedEstimate(of: voice, at: builder.frame, resident: r, outputRate: outputRate)
            let span = window * Self.step(voice, r, outputRate: outputRate)
            let (meanSquare, peak) = Self.windowLevel(
                r.envelope, resident: r, loops: voice.numberOfLoops, played: played, span: span)
            guard meanSquare > 0 || peak > 0 else { continue }
            let (power, louder) = Self.panGains(pan, channels: r.channels)
            // Per output channel: the source's channels' power, spread by the panner over the outputs.
            let heard = meanSquare * Double(gain * gain) * Double(Float(r.channels) * power / outputChannels)
            builder.addLevel(on: bus, meanSquare: heard, peak: Double(peak * gain * louder))
        }
    }

    /// The mean square (over the span, silence before the start included)
    /// and the peak of a voice that has played `played` sound frames, over
    /// the last `span` of them, from the sound's envelope.
    ///
    /// - Parameters:
    ///   - envelope: the sound's level, block by block.
    ///   - resident: the sound (its loop region and length).
    ///   - loops: the voice's repeats (-1: endless).
    ///   - played: sound frames since its start, across loops.
    ///   - span: sound frames in the window.
    static func windowLevel(
        _ envelope: LevelEnvelope, resident r: SoundEffect.Resident, loops: Int, played: Double, span: Double
    ) -> (meanSquare: Double, peak: Float) {
        let active = min(span, played)
        guard active >= 1, span > 0, !envelope.meanSquares.isEmpty else { return (0, 0) }
        let blocks = Int((active / Double(LevelEnvelope.blockFrames)).rounded(.up))
        let count = min(levelSamples, max(1, blocks))
        let stride = active / Double(count)
        let last = envelope.meanSquares.count - 1
        let lastFrame = r.frames - 1
        var sum = 0.0
        var peak: Float = 0
        var i = 0
        var t = played - active + 0.5 * stride
        // Read through buffer pointers: a few thousand reads a snapshot, each
        // an array's bounds check and its retain and release otherwise.
        envelope.meanSquares.withUnsafeBufferPointer { meanSquares in
            envelope.peaks.withUnsafeBufferPointer { peaks in
                while i < count {
                    // Where the sample falls (intro, a loop, the tail), worked out
                    // once per part: the samples after it walk on until the part ends.
                    let (part, _, offset) = place(played: t, resident: r, loops: loops)
                    let base: Int
                    let length: Double
                    switch part {
                    case .intro: (base, length) = (0, Double(r.introFrames))
                    case .loop: (base, length) = (r.introFrames, Double(r.cycleFrames))
                    case .tail: (base, length) = (r.introFrames + r.cycleFrames, .infinity)
                    }
                    var along = offset
                    repeat {
                        let frame = min(lastFrame, base + Int(along))
                        let block = min(last, max(0, frame / LevelEnvelope.blockFrames))
                        sum += Double(meanSquares[block])
                        peak = max(peak, peaks[block])
                        i += 1
                        t += stride
                        along += stride
                    } while i < count && along < length
                }
            }
        }
        return (sum / Double(count) * active / span, peak)
    }

    /// Where a voice placed at `p` sounds between the ears, as a pan: its
    /// angle off the listener's forward axis towards the right, over 90°.
    static func pan(of p: Audio3DPoint, listener: Listener, right: Audio3DPoint) -> Float {
        let dx = p.x - listener.position.x
        let dy = p.y - listener.position.y
        let dz = p.z - listener.position.z
        let length = (dx * dx + dy * dy + dz * dz).squareRoot()
        guard length > 0 else { return 0 }
        let side = min(1, max(-1, (dx * right.x + dy * right.y + dz * right.z) / length))
        return asin(side) * 2 / Float.pi
    }

    /// The gains OpenAL Soft's panning gives one source channel at `pan`:
    /// the sum of its squared gains over the two outputs, and the louder
    /// one. NaN pan: passed straight through (gain 1 to one output).
    ///
    /// A mono sound's gains are OpenAL Soft 1.19's own, measured on a stereo
    /// loopback device at every eighth of the pan range (``nearEarGains``,
    /// ``farEarGains``) and interpolated: −4.5 dB to each ear in front (the
    /// two together −1.5 dB), all to one ear from a pan of ±0.75. A stereo
    /// sound's channels reach the outputs at unity power (each to its own
    /// ear in the middle; uncorrelated channels keep their power wherever
    /// they are panned, correlated ones add up to 2.5 dB more at the sides).
    static func panGains(_ pan: Float, channels: Int) -> (power: Float, louder: Float) {
        guard !pan.isNaN, channels == 1 else { return (1, 1) }
        let position = min(1, abs(pan)) * Float(nearEarGains.count - 1)
        let i = min(nearEarGains.count - 2, Int(position))
        let along = position - Float(i)
        let near = nearEarGains[i] + (nearEarGains[i + 1] - nearEarGains[i]) * along
        let far = farEarGains[i] + (farEarGains[i + 1] - farEarGains[i]) * along
        return (near * near + far * far, near)
    }

    /// OpenAL Soft 1.19's gains for a mono source panned by ``ALSource/setPan(_:)``
    /// at |pan| = 0, 1/8, ..., 1, to the nearer and the farther ear.
    static let nearEarGains: [Float] = [0.5957, 0.7367, 0.8573, 0.9472, 0.9986, 1, 1, 1, 1]
    static let farEarGains: [Float] = [0.5957, 0.4464, 0.3018, 0.1742, 0.0747, 0.0118, 0, 0, 0]
}
