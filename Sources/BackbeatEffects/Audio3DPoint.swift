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

/// A point or vector in the listener's world, in metres (AVAudio3DPoint).
///
/// OpenAL's coordinates: +X is right, +Y is up, and a listener that has not
/// turned faces -Z.
public struct Audio3DPoint: Sendable, Hashable, Codable {
    /// Metres along the X axis (right).
    public var x: Float
    /// Metres along the Y axis (up).
    public var y: Float
    /// Metres along the Z axis (towards the listener's back).
    public var z: Float

    /// A point from its three coordinates, in metres.
    ///
    /// - Parameters:
    ///   - x: Metres to the right (+X).
    ///   - y: Metres up (+Y).
    ///   - z: Metres backwards (+Z; a listener at rest faces -Z).
    public init(x: Float, y: Float, z: Float) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The origin, where the listener stands until it moves.
    public static let zero = Audio3DPoint(x: 0, y: 0, z: 0)

    /// Whether every coordinate is a finite number (NaN and infinities are not).
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
}

/// A heading as three angles in degrees (AVAudio3DAngularOrientation).
///
/// Yaw turns about +Y (positive turns right), pitch about the listener's
/// right axis (positive looks up), roll about the facing direction (positive
/// tilts the head to the right). All zero faces -Z with +Y up.
public struct Audio3DAngularOrientation: Sendable, Hashable, Codable {
    /// Degrees turned right about the vertical axis.
    public var yaw: Float
    /// Degrees looked up.
    public var pitch: Float
    /// Degrees the head is tilted to the right.
    public var roll: Float

    /// An orientation from its three angles, in degrees.
    ///
    /// - Parameters:
    ///   - yaw: Degrees turned right about the vertical axis.
    ///   - pitch: Degrees looked up.
    ///   - roll: Degrees the head is tilted to the right.
    public init(yaw: Float, pitch: Float, roll: Float) {
        self.yaw = yaw
        self.pitch = pitch
        self.roll = roll
    }
}

/// A heading as two vectors (AVAudio3DVectorOrientation): where the listener
/// faces and which way is up over its head.
public struct Audio3DVectorOrientation: Sendable, Hashable, Codable {
    /// The direction the listener faces.
    public var forward: Audio3DPoint
    /// The direction over the listener's head.
    public var up: Audio3DPoint

    /// An orientation from its facing and up vectors (any length, not parallel).
    ///
    /// - Parameters:
    ///   - forward: Where the listener faces.
    ///   - up: Which way is up over its head.
    public init(forward: Audio3DPoint, up: Audio3DPoint) {
        self.forward = forward
        self.up = up
    }
}

/// How gain falls with distance (AVAudioEnvironmentDistanceAttenuationModel).
///
/// With d clamped between the reference distance r and the maximum distance
/// m, and rolloff f: inverse is r / (r + f (d - r)); linear is
/// 1 - f (d - r) / (m - r) (not below 0); exponential is (d / r)^-f.
public enum AudioDistanceAttenuationModel: String, Sendable, Hashable, Codable, CaseIterable {
    /// r / (r + f (d - r)): -6 dB per doubling with the defaults.
    case inverse
    /// 1 - f (d - r) / (m - r): falls in a straight line to silence at m (with f = 1).
    case linear
    /// (d / r)^-f.
    case exponential
}

/// How voices fade with distance from the listener
/// (AVAudioEnvironmentDistanceAttenuationParameters).
public struct AudioDistanceAttenuationParameters: Sendable, Hashable, Codable {
    /// The curve (default inverse).
    public var distanceAttenuationModel: AudioDistanceAttenuationModel
    /// Within this distance (metres, > 0) a voice plays at full level (default 1).
    public var referenceDistance: Float
    /// Beyond this distance (metres, at least the reference) a voice gets no quieter (default 100,000).
    public var maximumDistance: Float
    /// How steeply the curve falls (0 or more, default 1; 0 turns attenuation off).
    public var rolloffFactor: Float

    /// Parameters from their four values (the defaults are AVAudioEnvironmentNode's).
    ///
    /// - Parameters:
    ///   - distanceAttenuationModel: The curve.
    ///   - referenceDistance: Metres (> 0) within which a voice plays at full level.
    ///   - maximumDistance: Metres (at least `referenceDistance`) beyond which a voice gets no quieter.
    ///   - rolloffFactor: How steeply the curve falls (0 or more; 0 turns attenuation off).
    public init(
        distanceAttenuationModel: AudioDistanceAttenuationModel = .inverse, referenceDistance: Float = 1,
        maximumDistance: Float = 100_000, rolloffFactor: Float = 1
    ) {
        self.distanceAttenuationModel = distanceAttenuationModel
        self.referenceDistance = referenceDistance
        self.maximumDistance = maximumDistance
        self.rolloffFactor = rolloffFactor
    }

    /// Whether the values make a curve: finite, reference > 0, maximum >= reference, rolloff >= 0.
    public var isValid: Bool {
        referenceDistance.isFinite && maximumDistance.isFinite && rolloffFactor.isFinite
            && referenceDistance > 0 && maximumDistance >= referenceDistance && rolloffFactor >= 0
    }

    /// The gain (0...1) these parameters give a voice `distance` metres from the listener.
    ///
    /// - Parameter distance: Metres from the listener; NaN counts as the reference distance.
    /// - Returns: The gain, 1 within the reference distance.
    public func gain(atDistance distance: Float) -> Float {
        let d = min(max(distance.isNaN ? referenceDistance : distance, referenceDistance), maximumDistance)
        let r = referenceDistance
        let f = rolloffFactor
        switch distanceAttenuationModel {
        case .inverse: return r / (r + f * (d - r))
        case .linear: return maximumDistance > r ? max(0, 1 - f * (d - r) / (maximumDistance - r)) : 1
        case .exponential: return pow(d / r, -f)
        }
    }
}

/// How a directional voice's level falls off around its facing (OpenAL's
/// sound cone).
///
/// A listener within `innerAngle / 2` degrees of the voice's direction hears
/// it at full level; beyond `outerAngle / 2` at `outerGain` (and its high
/// frequencies further at `outerHighFrequencyGain`); in between the gain
/// moves linearly with the angle. The default (360, 360, 0, 1) is
/// omnidirectional.
public struct AudioCone: Sendable, Hashable, Codable {
    /// The full angle, in degrees (0...360), of full level around the direction.
    public var innerAngle: Float
    /// The full angle, in degrees (innerAngle...360), beyond which `outerGain` applies.
    public var outerAngle: Float
    /// The gain outside the outer angle, 0...1.
    public var outerGain: Float
    /// The further gain of high frequencies outside the outer angle, 0...1 (1: none).
    public var outerHighFrequencyGain: Float

    /// A cone; see the type's description.
    ///
    /// - Parameters:
    ///   - innerAngle: The full angle in degrees (0...360) of full level around the direction.
    ///   - outerAngle: The full angle in degrees (`innerAngle`...360) beyond which `outerGain` applies.
    ///   - outerGain: The gain outside the outer angle, 0...1.
    ///   - outerHighFrequencyGain: The further gain of high frequencies outside the outer angle, 0...1 (1: none).
    public init(
        innerAngle: Float = 360, outerAngle: Float = 360, outerGain: Float = 0, outerHighFrequencyGain: Float = 1
    ) {
        self.innerAngle = innerAngle
        self.outerAngle = outerAngle
        self.outerGain = outerGain
        self.outerHighFrequencyGain = outerHighFrequencyGain
    }

    /// Whether the angles are within 0...360 with inner <= outer and the gains within 0...1 (NaN is not).
    public var isValid: Bool {
        (0...360).contains(innerAngle) && (0...360).contains(outerAngle) && innerAngle <= outerAngle
            && (0...1).contains(outerGain) && (0...1).contains(outerHighFrequencyGain)
    }
}
