import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport

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
    package var properties: ALReverbProperties

    /// A disabled reverb with the `generic` preset's room.
    public init() {
        enable = false
        properties = ALReverbProperties()
        presetName = nil
    }

    /// An enabled reverb with a preset of `efx-presets.h`.
    ///
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
    ///
    /// - Parameter name: A preset's name from ``presetNames``, such as `hangar` or `castle_smallroom`.
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
    package var slotGain: Float { enable ? pow(10, levelValue / 20) : 0 }
}
