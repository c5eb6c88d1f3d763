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
import BackbeatSupport
import BackbeatOpenAL
import BackbeatMedia
import BackbeatEngine

/// A reverb, like `AVAudioEnvironmentReverbParameters`: on or off, a level,
/// and the room, from one of OpenAL's 113 presets or set parameter by parameter.
///
/// ```swift
/// var cave = try AudioEnvironmentReverbParameters(preset: "cave")
/// cave.level = -6
/// engine.reverbParameters = cave
/// ```
public struct AudioEnvironmentReverbParameters: Sendable, Equatable {
    /// Whether the reverb sounds (default true for a preset, false for `init()`).
    public var enable: Bool
    /// The reverb's output level in dB, -100...0 (the effect slot's gain).
    /// Values outside are clamped; NaN is ignored.
    public var level: Float {
        get { levelValue }
        set { if !newValue.isNaN { levelValue = min(max(newValue, -100), 0) } }
    }
    private var levelValue: Float = 0
    /// The preset it was loaded from, while no parameter changed since.
    public private(set) var presetName: String?
    var properties: ALReverbProperties

    /// A disabled reverb with the `generic` preset's room.
    public init() {
        enable = false
        properties = ALReverbProperties()
        presetName = nil
    }

    /// An enabled reverb with a preset of `efx-presets.h`.
    /// - Parameter preset: its name in lowercase without `EFX_REVERB_PRESET_` (``presetNames``).
    /// - Throws: ``BackbeatError/Code/unknownReverbPreset`` for any other name.
    public init(preset: String) throws {
        self.init()
        try loadFactoryReverbPreset(preset)
        enable = true
    }

    /// Every preset name, in `efx-presets.h` order: `generic`, `paddedcell`, `room`... `hangar`, `cave`...
    public static let presetNames: [String] = ALReverbProperties.presets.map(\.name)

    /// Loads a preset's room (keeps ``enable`` and ``level``).
    /// - Throws: ``BackbeatError/Code/unknownReverbPreset`` if `name` is not in ``presetNames``.
    public mutating func loadFactoryReverbPreset(_ name: String) throws {
        guard let p = ALReverbProperties.preset(named: name) else {
            throw BackbeatError(
                .unknownReverbPreset, operation: "loadFactoryReverbPreset",
                reason: "\"\(name.prefix(64))\" is not one of the \(Self.presetNames.count) presets (hangar, cave...)")
        }
        properties = p
        presetName = name
    }

    private mutating func set(_ keyPath: WritableKeyPath<ALReverbProperties, Float>, _ value: Float) {
        guard !value.isNaN else { return }
        properties[keyPath: keyPath] = value
        properties = properties.clamped
        presetName = nil
    }

    private static func seconds(_ t: MediaTime) -> Float { Float(t.seconds) }

    /// How long the late reverb takes to fall by 60 dB (0.1 ... 20 s).
    public var decayTime: MediaTime {
        get { MediaTime(seconds: Double(properties.decayTime)) }
        set { set(\.decayTime, Self.seconds(newValue)) }
    }
    /// High-frequency decay time relative to ``decayTime`` (0.1 ... 2).
    public var decayHFRatio: Float {
        get { properties.decayHFRatio }
        set { set(\.decayHFRatio, newValue) }
    }
    /// Echo density of the late reverb (0 ... 1).
    public var density: Float {
        get { properties.density }
        set { set(\.density, newValue) }
    }
    /// Echo diffusion (0 ... 1).
    public var diffusion: Float {
        get { properties.diffusion }
        set { set(\.diffusion, newValue) }
    }
    /// The room's master gain (0 ... 1).
    public var gain: Float {
        get { properties.gain }
        set { set(\.gain, newValue) }
    }
    /// The room's gain above 5 kHz (0 ... 1).
    public var gainHF: Float {
        get { properties.gainHF }
        set { set(\.gainHF, newValue) }
    }
    /// The early reflections' gain (0 ... 3.16).
    public var reflectionsGain: Float {
        get { properties.reflectionsGain }
        set { set(\.reflectionsGain, newValue) }
    }
    /// Delay before the first reflection (0 ... 0.3 s).
    public var reflectionsDelay: MediaTime {
        get { MediaTime(seconds: Double(properties.reflectionsDelay)) }
        set { set(\.reflectionsDelay, Self.seconds(newValue)) }
    }
    /// The late reverb's gain (0 ... 10).
    public var lateReverbGain: Float {
        get { properties.lateReverbGain }
        set { set(\.lateReverbGain, newValue) }
    }
    /// Delay of the late reverb after the first reflection (0 ... 0.1 s).
    public var lateReverbDelay: MediaTime {
        get { MediaTime(seconds: Double(properties.lateReverbDelay)) }
        set { set(\.lateReverbDelay, Self.seconds(newValue)) }
    }

    /// The slot gain for ``level`` and ``enable``.
    var slotGain: Float { enable ? pow(10, levelValue / 20) : 0 }
}

/// A region of the world with a reverb of its own, like FMOD's Reverb3D or
/// Unity's reverb zones. Inside its shape the zone's reverb is the
/// environment; over ``fadeDistance`` outside it, it blends into what lies
/// around (other zones, or the engine's ``AudioEngine/reverbParameters``).
public struct ReverbZone: Sendable, Equatable {
    /// A zone's shape, in metres, in world coordinates.
    public enum Shape: Sendable, Equatable {
        /// A ball.
        case sphere(center: Audio3DPoint, radius: Float)
        /// An axis-aligned box with its full size on each axis.
        case box(center: Audio3DPoint, size: Audio3DPoint)
    }

    /// The zone's name, for your own bookkeeping.
    public var name: String
    /// Where the zone is.
    public var shape: Shape
    /// How far outside its shape the zone still counts, fading linearly to nothing (metres, ≥ 0).
    public var fadeDistance: Float
    /// The zone's reverb.
    public var reverb: AudioEnvironmentReverbParameters

    /// A zone; a negative or NaN fade distance is 0.
    public init(name: String, shape: Shape, fadeDistance: Float, reverb: AudioEnvironmentReverbParameters) {
        self.name = name
        self.shape = shape
        self.fadeDistance = fadeDistance.isNaN ? 0 : max(0, fadeDistance)
        self.reverb = reverb
    }

    /// How far `point` lies outside the shape (0 inside).
    func distance(from point: Audio3DPoint) -> Float {
        switch shape {
        case .sphere(let c, let r):
            let dx = point.x - c.x, dy = point.y - c.y, dz = point.z - c.z
            return max(0, (dx * dx + dy * dy + dz * dz).squareRoot() - max(0, r))
        case .box(let c, let s):
            let dx = max(0, abs(point.x - c.x) - abs(s.x) / 2)
            let dy = max(0, abs(point.y - c.y) - abs(s.y) / 2)
            let dz = max(0, abs(point.z - c.z) - abs(s.z) / 2)
            return (dx * dx + dy * dy + dz * dz).squareRoot()
        }
    }

    /// The zone's weight at `point`: 1 inside, falling linearly to 0 at ``fadeDistance`` outside.
    public func weight(at point: Audio3DPoint) -> Float {
        guard point.isFinite else { return 0 }
        let d = distance(from: point)
        if d <= 0 { return 1 }
        guard fadeDistance > 0, d.isFinite else { return 0 }
        return max(0, 1 - d / fadeDistance)
    }
}
