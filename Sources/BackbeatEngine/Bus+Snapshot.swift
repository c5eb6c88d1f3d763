import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How far one active mix snapshot is in, 0 (not at all) to 1 (fully), at
/// any engine frame: its attack over a duration with a curve, then its
/// release over a duration of its own. Shared by every bus (and the reverb)
/// the snapshot touches. Read and written under the engine lock.
package final class SnapshotEnvelope: @unchecked Sendable {
    // @unchecked: `release` is written and read only under the engine lock
    // (checked in debug builds).
    package let priority: Int
    /// Activation order: among equal priorities the later snapshot wins.
    package let order: UInt64
    let start: Int64
    let attackFrames: Int64
    let attackCurve: FadeCurve
    /// Filters, effects and the reverb never move faster than this (the de-zipper time).
    let smoothFrames: Int64
    private var release: (start: Int64, frames: Int64, curve: FadeCurve)?
    #if DEBUG
    /// The engine's lock, which the debug build checks on every access to `release`.
    private let engineLock: Lock?
    #endif

    /// An envelope starting at `start`.
    ///
    /// - Parameters:
    ///   - priority: Where several snapshots set one property, the highest wins.
    ///   - start: The engine frame its attack starts at.
    ///   - frames: The attack's length in frames.
    ///   - curve: The attack's curve.
    ///   - smoothFrames: The de-zipper time: filters, effects and the reverb never move faster.
    ///   - engineLock: The engine's lock, which guards the envelope (checked in
    ///     debug builds; nil checks nothing).
    package init(
        priority: Int, start: Int64, frames: Int64, curve: FadeCurve, smoothFrames: Int64, engineLock: Lock? = nil
    ) {
        #if DEBUG
        self.engineLock = engineLock
        #endif
        self.priority = priority
        self.order = UniqueID.next()
        self.start = start
        self.attackFrames = max(0, frames)
        self.attackCurve = curve
        self.smoothFrames = max(0, smoothFrames)
    }

    /// Whether `self` ranks below `other` (lower priority, or equal and older).
    package func ranksBelow(_ other: SnapshotEnvelope) -> Bool {
        (priority, order) < (other.priority, other.order)
    }

    /// Traps, in a debug build, unless the engine lock is held. A release build does nothing.
    @inline(__always)
    private func preconditionEngineLocked(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        engineLock?.preconditionHeld("a mix snapshot's envelope", file: file, line: line)
        #endif
    }

    /// Whether ``release(at:frames:curve:)`` was called.
    package var isReleased: Bool {
        preconditionEngineLocked()
        return release != nil
    }

    /// Starts the release at `frame`; a second call does nothing.
    ///
    /// - Parameters:
    ///   - frame: The engine frame the release starts at.
    ///   - frames: The release's length in frames.
    ///   - curve: The release's curve.
    package func release(at frame: Int64, frames: Int64, curve: FadeCurve) {
        preconditionEngineLocked()
        guard release == nil else { return }
        release = (frame, max(0, frames), curve)
    }

    /// The volume's progress at `frame` (0...1).
    package func amount(at frame: Int64) -> Float { amount(at: frame, minimumFrames: 0) }

    /// The progress of filters, effects and the reverb at `frame`: the same,
    /// but never faster than the de-zipper time.
    package func smoothAmount(at frame: Int64) -> Float { amount(at: frame, minimumFrames: smoothFrames) }

    /// The curve in force at `frame`: the attack's, or the release's once it began.
    package func curve(at frame: Int64) -> FadeCurve {
        preconditionEngineLocked()
        if let release, frame >= release.start { return release.curve }
        return attackCurve
    }

    /// Whether the snapshot's progress still moves at `frame`: in its attack
    /// (or the de-zipper time, if longer), or released and not yet run out.
    package func isMoving(at frame: Int64) -> Bool {
        preconditionEngineLocked()
        if let release { return frame >= release.start && !isFinished(at: frame) }
        return frame < start + max(attackFrames, smoothFrames)
    }

    /// Whether the release has run out by `frame`, so the snapshot no longer counts.
    package func isFinished(at frame: Int64) -> Bool {
        preconditionEngineLocked()
        guard let release else { return false }
        return frame >= release.start + max(release.frames, smoothFrames)
    }

    private func amount(at frame: Int64, minimumFrames: Int64) -> Float {
        preconditionEngineLocked()
        func ratio(_ elapsed: Int64, _ span: Int64) -> Float {
            if span <= 0 { return elapsed >= 0 ? 1 : 0 }
            return Float(min(max(Double(elapsed) / Double(span), 0), 1))
        }
        let attack = max(attackFrames, minimumFrames)
        guard let release, frame >= release.start else { return ratio(frame - start, attack) }
        let from = ratio(release.start - start, attack)
        return from * (1 - ratio(frame - release.start, max(release.frames, minimumFrames)))
    }
}

/// What one active snapshot sets on one bus (nil: leaves it to what is below).
package struct BusSnapshotLayer: Sendable {
    package let envelope: SnapshotEnvelope
    package let volume: Float?
    package let filter: FilterGains?
    package let effect: BusEffect?
    package let wetDryMix: Float?

    package init(
        envelope: SnapshotEnvelope, volume: Float?, filter: FilterGains?, effect: BusEffect?, wetDryMix: Float?
    ) {
        self.envelope = envelope
        self.volume = volume
        self.filter = filter
        self.effect = effect
        self.wetDryMix = wetDryMix
    }
}

extension BusEffect {
    /// The effect `fraction` (0...1) of the way from `self` to `other`: each
    /// parameter interpolated when both are the same kind (delays,
    /// frequencies, semitones and gains linearly; the equalizer's and the
    /// distortion's and the autowah's gains are in decibels already; a
    /// reverb's properties as zones blend them, its level in dB), and
    /// otherwise (another kind, the compressor's on/off, a frequency
    /// shifter's direction, a chorus's or flanger's waveform, a reverb
    /// enabled against one disabled)
    /// `self` below the midpoint and `other` from it.
    package func blended(toward other: BusEffect, fraction: Float) -> BusEffect {
        let t = fraction.isNaN ? 1 : min(max(fraction, 0), 1)
        func mix(_ a: Float, _ b: Float) -> Float { a + (b - a) * t }
        func time(_ a: MediaTime, _ b: MediaTime) -> MediaTime {
            MediaTime(seconds: a.seconds + (b.seconds - a.seconds) * Double(t))
        }
        switch (self, other) {
        case (.echo(let d0, let f0, let m0), .echo(let d1, let f1, let m1)):
            return .echo(delay: time(d0, d1), feedback: mix(f0, f1), damping: mix(m0, m1))
        case (.ringModulator(let f0), .ringModulator(let f1)):
            return .ringModulator(frequency: mix(f0, f1))
        case (.equalizer(let l0, let a0, let b0, let h0), .equalizer(let l1, let a1, let b1, let h1)):
            return .equalizer(lowGain: mix(l0, l1), mid1Gain: mix(a0, a1), mid2Gain: mix(b0, b1), highGain: mix(h0, h1))
        case (.distortion(let e0, let g0, let c0, let q0, let w0), .distortion(let e1, let g1, let c1, let q1, let w1)):
            return .distortion(
                edge: mix(e0, e1), gain: mix(g0, g1), lowPassCutoff: mix(c0, c1), eqCenter: mix(q0, q1),
                eqBandwidth: mix(w0, w1))
        case (.pitchShifter(let s0), .pitchShifter(let s1)):
            return .pitchShifter(semitones: mix(s0, s1))
        case (.frequencyShifter(let f0, let d0), .frequencyShifter(let f1, let d1)) where d0 == d1:
            return .frequencyShifter(frequency: mix(f0, f1), direction: d0)
        case (
            .chorus(let w0, let p0, let r0, let a0, let f0, let d0),
            .chorus(let w1, let p1, let r1, let a1, let f1, let d1)
        )
        where w0 == w1:
            return .chorus(
                waveform: w0, phase: mix(p0, p1), rate: mix(r0, r1), depth: mix(a0, a1), feedback: mix(f0, f1),
                delay: time(d0, d1))
        case (
            .flanger(let w0, let p0, let r0, let a0, let f0, let d0),
            .flanger(let w1, let p1, let r1, let a1, let f1, let d1)
        )
        where w0 == w1:
            return .flanger(
                waveform: w0, phase: mix(p0, p1), rate: mix(r0, r1), depth: mix(a0, a1), feedback: mix(f0, f1),
                delay: time(d0, d1))
        case (.autowah(let a0, let r0, let q0, let g0), .autowah(let a1, let r1, let q1, let g1)):
            return .autowah(
                attackTime: time(a0, a1), releaseTime: time(r0, r1), resonance: mix(q0, q1), peakGain: mix(g0, g1))
        case (.reverb(let r0), .reverb(let r1)) where r0.enable == r1.enable:
            // Every property as the environment reverb's zones blend them, the level in dB.
            var reverb = r1
            reverb.properties = ALReverbProperties.blend(r0.properties, r1.properties, t)
            reverb.level = mix(r0.level, r1.level)
            return .reverb(reverb)
        default:
            // Another kind, an on/off switch (the compressor), or a kind this
            // blend does not know: the whole effect switches at the midpoint.
            return t < 0.5 ? self : other
        }
    }

    /// Checks every value is in range, as ``Bus/setEffect(_:wetDryMix:)`` does.
    ///
    /// - Throws: `.invalidArgument` naming the value out of range.
    package func validate() throws { _ = try parameters() }
}

extension Bus {
    /// Adds a snapshot's layer, in priority order. Engine lock held.
    package func addSnapshotLayerLocked(_ layer: BusSnapshotLayer) {
        preconditionEngineLocked()
        let index = snapshotLayers.firstIndex { layer.envelope.ranksBelow($0.envelope) } ?? snapshotLayers.count
        snapshotLayers.insert(layer, at: index)
    }

    /// Drops the layers of snapshots whose release has run out.
    func removeFinishedSnapshotLayers(at frame: Int64) {
        preconditionEngineLocked()
        if !snapshotLayers.isEmpty { snapshotLayers.removeAll { $0.envelope.isFinished(at: frame) } }
    }

    /// The volume at `frame` with the snapshots over `base` (the game's own
    /// level or fade): from the lowest priority up, each moves the value
    /// below it toward its own along its curve, by its progress.
    func snapshotVolume(over base: Float, at frame: Int64) -> Float {
        var value = base
        for layer in snapshotLayers {
            guard let target = layer.volume else { continue }
            let span: Int64 = 1 << 24
            let amount = layer.envelope.amount(at: frame)
            let ramp = Ramp(
                from: value, to: target, startFrame: 0, frames: span, curve: layer.envelope.curve(at: frame))
            value = ramp.gain(at: Int64((Double(amount) * Double(span)).rounded()))
        }
        return value
    }

    /// The filter at `frame` with the snapshots over `base`, each gain moved in decibels.
    func snapshotFilter(over base: FilterGains, at frame: Int64) -> FilterGains {
        var value = base
        for layer in snapshotLayers {
            guard let target = layer.filter else { continue }
            value = value.moved(toward: target, fraction: layer.envelope.smoothAmount(at: frame))
        }
        return value
    }

    /// The effect and wet/dry mix at `frame` with the snapshots over the
    /// bus's own; nil when no snapshot sets this bus's effect or mix.
    func snapshotEffect(at frame: Int64) -> (effect: BusEffect?, wet: Float)? {
        guard snapshotLayers.contains(where: { $0.effect != nil || $0.wetDryMix != nil }) else { return nil }
        var effect = effectState.effect
        var wet = effectState.wet(at: frame)
        for layer in snapshotLayers where layer.effect != nil || layer.wetDryMix != nil {
            let amount = layer.envelope.smoothAmount(at: frame)
            if let target = layer.effect {
                let targetWet = layer.wetDryMix ?? (effect == nil ? 1 : wet)
                effect = effect.map { $0.blended(toward: target, fraction: amount) } ?? target
                wet += (targetWet - wet) * amount
            } else if let targetWet = layer.wetDryMix, effect != nil {
                wet += (targetWet - wet) * amount
            }
        }
        return (effect, wet)
    }
}

extension AudioEngine {
    /// The first bus named `name`, with the lock held.
    package func busLocked(named name: String) -> Bus? {
        preconditionLocked()
        return buses.first { $0.name == name }
    }
}
