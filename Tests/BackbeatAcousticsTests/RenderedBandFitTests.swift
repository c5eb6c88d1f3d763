import Backbeat
import BackbeatTesting
import Testing

@testable import BackbeatAcoustics
@testable import BackbeatEngine

#if canImport(Glibc)
import Glibc
#endif

/// How close the band-pass comes to a material's three transmissions,
/// rendered: octave tones of each band through the filter, against the
/// mapping before (broadband the geometric mean of low and mid, each shelf
/// the square root of its band's ratio).
@Suite struct RenderedBandFitTests {
    /// The octave tones each band is measured at.
    static let bands: [[Double]] = [[125, 250, 500], [1_000, 2_000, 4_000], [9_000, 12_000, 16_000]]

    /// The mapping before the fit, kept to measure against.
    static func previousMapping(_ b: AcousticBands) -> FilterGains {
        let middle = b.low > b.mid ? (b.low * b.mid).squareRoot() : b.mid
        let broadband = max(middle, b.high, 1e-9)
        return FilterGains(
            gain: broadband, gainLF: min(b.low / broadband, 1).squareRoot(),
            gainHF: min(b.high / broadband, 1).squareRoot())
    }

    /// Each band's rendered level, dB, through `filter` (nil: none).
    static func levels(_ filter: FilterGains?) throws -> [Double] {
        try withOfflineEngine { engine in
            var samples = [Float](repeating: 0, count: 48_000)
            for (k, frequency) in bands.joined().enumerated() {
                for i in 0..<samples.count {
                    samples[i] += 0.05 * Float(sin(2 * Double.pi * frequency * Double(i) / 48_000 + Double(k)))
                }
            }
            let buffer = try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: samples)
            let sound = try SoundEffect(buffer: buffer, name: "octaves", engine: engine)
            let voice = sound.play(looping: .forever)
            if let filter { voice.setAcousticFilter(filter, over: nil) }
            _ = try engine.render(frames: 4_800)
            let left = SampleAnalysis.channel(try engine.render(frames: 24_000), 0, of: 2)
            return bands.map { frequencies in
                let energy = frequencies.reduce(0.0) {
                    let level = Double(SampleAnalysis.level(of: left, atFrequency: $1, sampleRate: 48_000))
                    return $0 + level * level
                }
                return 10 * log10(energy / Double(frequencies.count))
            }
        }
    }

    /// Concrete, wood and metal pass far more low than mid: the fit's largest
    /// band error, rendered, is smaller than the previous mapping's; brick
    /// (flat) stays exact; no preset gets worse.
    @Test func theFitComesCloserToEachMaterialThanThePreviousMapping() throws {
        let open = try Self.levels(nil)
        var report: [String] = []
        for material in [AcousticMaterial.concrete, .brick, .wood, .metal, .generic, .plaster] {
            let wanted = material.transmission.decibels.values.map(Double.init)
            func errors(_ filter: FilterGains) throws -> [Double] {
                zip(try Self.levels(filter), zip(open, wanted)).map { $0 - $1.0 - $1.1 }
            }
            let before = try errors(Self.previousMapping(material.transmission))
            let after = try errors(material.transmission.filterGains)
            let worstBefore = before.map(abs).max()!
            let worstAfter = after.map(abs).max()!
            func f(_ e: [Double]) -> String { e.map { String(format: "%+.1f", $0) }.joined(separator: "/") }
            report.append("\(material.name): before \(f(before)) after \(f(after)) dB")
            #expect(worstAfter <= worstBefore + 0.2, "\(material.name): \(f(before)) → \(f(after))")
            if [AcousticMaterial.concrete, .wood, .metal].contains(where: { $0.name == material.name }) {
                #expect(worstAfter <= worstBefore - 0.5, "\(material.name): \(f(before)) → \(f(after))")
            }
            if material.name == "brick" { #expect(worstAfter < 0.5, "brick: \(f(after))") }
        }
        print("band errors (rendered − material, low/mid/high):\n" + report.joined(separator: "\n"))
    }
}
