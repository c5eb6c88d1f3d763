import BackbeatSupport
import Testing

@testable import BackbeatAcoustics

@Suite struct AcousticMaterialTests {
    /// Issue 33's table: absorption low/mid/high, then transmission low/mid/high.
    static let table: [(String, [Float], [Float])] = [
        ("generic", [0.10, 0.20, 0.30], [0.100, 0.050, 0.030]),
        ("brick", [0.03, 0.04, 0.07], [0.015, 0.015, 0.015]),
        ("concrete", [0.05, 0.07, 0.08], [0.015, 0.002, 0.001]),
        ("ceramic", [0.01, 0.02, 0.02], [0.060, 0.044, 0.011]),
        ("gravel", [0.60, 0.70, 0.80], [0.031, 0.012, 0.008]),
        ("carpet", [0.24, 0.69, 0.73], [0.020, 0.005, 0.003]),
        ("glass", [0.06, 0.03, 0.02], [0.060, 0.044, 0.011]),
        ("plaster", [0.12, 0.06, 0.04], [0.056, 0.056, 0.004]),
        ("wood", [0.11, 0.07, 0.06], [0.070, 0.014, 0.005]),
        ("metal", [0.20, 0.07, 0.06], [0.200, 0.025, 0.010]),
        ("rock", [0.13, 0.20, 0.24], [0.015, 0.002, 0.001]),
    ]

    @Test func presetsAreTheTable() throws {
        #expect(AcousticMaterial.presets.map(\.name) == Self.table.map(\.0))
        for (name, absorption, transmission) in Self.table {
            let preset = try #require(AcousticMaterial.preset(named: name))
            #expect(preset.absorption.values == absorption, "\(name)")
            #expect(preset.transmission.values == transmission, "\(name)")
        }
        #expect(AcousticMaterial.preset(named: "felt") == nil)
    }

    @Test(arguments: [Float.nan, .infinity, -0.01, 1.01])
    func customValuesOutsideZeroToOneAreRefused(_ bad: Float) {
        #expect(throws: BackbeatError.self) {
            try AcousticMaterial(
                name: "bad", absorption: AcousticBands(low: 0.1, mid: bad, high: 0.1), transmission: AcousticBands(0.1))
        }
        #expect(throws: BackbeatError.self) {
            try AcousticMaterial(name: "bad", absorption: AcousticBands(0.1), transmission: AcousticBands(bad))
        }
    }

    @Test func customMaterialKeepsItsValues() throws {
        let felt = try AcousticMaterial(
            name: "felt", absorption: AcousticBands(low: 0, mid: 0.5, high: 1), transmission: AcousticBands(1))
        #expect(felt.absorption == AcousticBands(low: 0, mid: 0.5, high: 1))
        #expect(felt.transmission == AcousticBands(1))
    }
}
