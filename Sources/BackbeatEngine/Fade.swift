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

/// The shape of a fade between two gains.
public enum FadeCurve: Sendable, Hashable {
    /// Gain changes at a constant rate.
    case linear
    /// Constant perceived power: `sin`/`cos` quarter-waves. Use it for
    /// crossfades and fade-outs that should not dip in the middle.
    case equalPower
    /// Constant rate in decibels, the natural shape for long fades.
    case exponential
}

/// A gain moving from one value to another over a span of engine frames.
package typealias Fade = Ramp

/// A parameter (a gain, a rate, a pan) moving from one value to another over
/// a span of engine frames along a ``FadeCurve``: the one ramp every glide in
/// the engine evaluates on its update step, so offline renders are exact.
package struct Ramp: Sendable {
    let from: Float
    let to: Float
    let startFrame: Int64
    let endFrame: Int64
    let curve: FadeCurve

    package init(from: Float, to: Float, startFrame: Int64, frames: Int64, curve: FadeCurve) {
        self.from = from
        self.to = to
        self.startFrame = startFrame
        self.endFrame = startFrame + max(0, frames)
        self.curve = curve
    }

    package func isComplete(at frame: Int64) -> Bool { frame >= endFrame }

    /// The value at `frame` (``gain(at:)`` under its general name).
    package func value(at frame: Int64) -> Float { gain(at: frame) }

    /// The gain at `frame`.
    package func gain(at frame: Int64) -> Float {
        if frame >= endFrame { return to }
        if frame <= startFrame { return from }
        let t = Float(Double(frame - startFrame) / Double(endFrame - startFrame))
        switch curve {
        case .linear:
            return from + (to - from) * t
        case .exponential where from < 0 || to < 0:
            // A value that crosses zero (a pan) has no decibels: constant rate.
            return from + (to - from) * t
        case .equalPower:
            // Rising: sin from 0 to 1; falling: cos from 1 to 0; scaled between the two gains.
            let shape = to >= from ? sin(t * .pi / 2) : 1 - cos(t * .pi / 2)
            return from + (to - from) * shape
        case .exponential:
            // Interpolate in decibels, with silence as -80 dB.
            let floor: Float = 1e-4
            let a = max(from, floor)
            let b = max(to, floor)
            let g = a * pow(b / a, t)
            if to <= floor && t >= 1 { return 0 }
            return g <= floor ? (to < from ? 0 : g) : g
        }
    }
}
