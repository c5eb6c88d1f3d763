import BackbeatSupport

/// What a surface does to sound, in three bands (``AcousticBands``), like
/// `PHASEMaterial`: how much of the energy striking it is absorbed, and how
/// much of the amplitude passes through it.
///
/// The presets are the values Steam Audio ships (its `IPLMaterial` table).
/// A surface a level names with no known material is ``generic``.
///
/// ```swift
/// let felt = try AcousticMaterial(
///     name: "felt", absorption: AcousticBands(low: 0.3, mid: 0.6, high: 0.8),
///     transmission: AcousticBands(0.05))
/// ```
public struct AcousticMaterial: Sendable, Equatable, Hashable {
    /// The material's name (a preset's name for a preset).
    public let name: String
    /// The fraction of the energy striking the surface that it absorbs, per band, 0...1.
    public let absorption: AcousticBands
    /// The amplitude gain of sound passing through the surface, per band, 0...1.
    public let transmission: AcousticBands

    /// A custom material.
    ///
    /// - Parameters:
    ///   - name: Its name, for messages and for a level file's `usemtl`.
    ///   - absorption: Energy fractions absorbed, each finite and within 0...1.
    ///   - transmission: Amplitude gains through it, each finite and within 0...1.
    /// - Throws: ``BackbeatError/Code/invalidMaterial`` when a value is NaN, infinite or outside 0...1.
    public init(name: String, absorption: AcousticBands, transmission: AcousticBands) throws(BackbeatError) {
        for (what, bands) in [("absorption", absorption), ("transmission", transmission)] {
            for (band, value) in zip(["low", "mid", "high"], bands.values) where !(value >= 0 && value <= 1) {
                throw BackbeatError(
                    .invalidMaterial, operation: "AcousticMaterial",
                    reason: "\(name.prefix(64)): \(what) \(band) is \(value), not within 0...1")
            }
        }
        self.init(checkedName: name, absorption: absorption, transmission: transmission)
    }

    private init(checkedName name: String, absorption: AcousticBands, transmission: AcousticBands) {
        self.name = name
        self.absorption = absorption
        self.transmission = transmission
    }

    private init(_ name: String, _ absorption: (Float, Float, Float), _ transmission: (Float, Float, Float)) {
        self.init(
            checkedName: name,
            absorption: AcousticBands(low: absorption.0, mid: absorption.1, high: absorption.2),
            transmission: AcousticBands(low: transmission.0, mid: transmission.1, high: transmission.2))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        for value in absorption.values + transmission.values { hasher.combine(value) }
    }

    /// What a surface is when nothing says otherwise.
    public static let generic = AcousticMaterial("generic", (0.10, 0.20, 0.30), (0.100, 0.050, 0.030))
    /// Brick.
    public static let brick = AcousticMaterial("brick", (0.03, 0.04, 0.07), (0.015, 0.015, 0.015))
    /// Concrete.
    public static let concrete = AcousticMaterial("concrete", (0.05, 0.07, 0.08), (0.015, 0.002, 0.001))
    /// Ceramic tiles.
    public static let ceramic = AcousticMaterial("ceramic", (0.01, 0.02, 0.02), (0.060, 0.044, 0.011))
    /// Gravel.
    public static let gravel = AcousticMaterial("gravel", (0.60, 0.70, 0.80), (0.031, 0.012, 0.008))
    /// Carpet.
    public static let carpet = AcousticMaterial("carpet", (0.24, 0.69, 0.73), (0.020, 0.005, 0.003))
    /// Glass.
    public static let glass = AcousticMaterial("glass", (0.06, 0.03, 0.02), (0.060, 0.044, 0.011))
    /// Plaster (PHASE's drywall is the nearest).
    public static let plaster = AcousticMaterial("plaster", (0.12, 0.06, 0.04), (0.056, 0.056, 0.004))
    /// Wood.
    public static let wood = AcousticMaterial("wood", (0.11, 0.07, 0.06), (0.070, 0.014, 0.005))
    /// Metal.
    public static let metal = AcousticMaterial("metal", (0.20, 0.07, 0.06), (0.200, 0.025, 0.010))
    /// Rock.
    public static let rock = AcousticMaterial("rock", (0.13, 0.20, 0.24), (0.015, 0.002, 0.001))

    /// Every preset, ``generic`` first.
    public static let presets: [AcousticMaterial] = [
        generic, brick, concrete, ceramic, gravel, carpet, glass, plaster, wood, metal, rock,
    ]

    /// The preset by its name (lowercase, as in ``presets``), or nil.
    ///
    /// - Parameter name: A preset's name, such as `concrete`.
    public static func preset(named name: String) -> AcousticMaterial? {
        presets.first { $0.name == name }
    }
}
