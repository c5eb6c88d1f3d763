import Testing

@testable import BackbeatAcoustics

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DiffractionTests {
    @Test(arguments: [(Float(0.5), Float(10.5)), (1, 13.1), (10, 23.0)])
    func maekawaMatchesTheIssuesValues(_ n: Float, _ decibels: Float) {
        #expect(abs(Diffraction.maekawaLoss(fresnelNumber: n) - decibels) < 0.05)
    }

    @Test func maekawaIsFiveDecibelsAtTheShadowBoundary() {
        #expect(abs(Diffraction.maekawaLoss(fresnelNumber: 0) - 5) < 1e-4)
        #expect(abs(Diffraction.maekawaLoss(fresnelNumber: -3) - 5) < 1e-4)
    }

    @Test func fresnelNumberUsesTheBandCentres() {
        // δ = 343/800 m gives N = 2δf/c = f/400.
        let gains = Diffraction.gains(detour: 343 / 800)
        let expected = AcousticBands(low: 1, mid: 6.25, high: 30).map {
            pow(10, -Diffraction.maekawaLoss(fresnelNumber: $0) / 20)
        }
        for (g, e) in zip(gains.values, expected.values) { #expect(abs(g - e) < 1e-5) }
    }

    @Test func bendPointMakesEqualAnglesWithTheEdge() {
        // An edge along x at y = 1; source and listener at different distances.
        let bend = Diffraction.bendPoint(onEdge: [-10, 1, 0], [10, 1, 0], from: [0, 0, -1], to: [3, 0, 2])
        // Unfolded about the edge, the path is straight: it meets the edge
        // in proportion to the two points' distances from it, √2 and √5.
        let expected = 3 * Float(2).squareRoot() / (Float(2).squareRoot() + Float(5).squareRoot())
        #expect(abs(bend.x - expected) < 1e-4)
        #expect(bend.y == 1)
        // Clamped to the segment's end.
        let end = Diffraction.bendPoint(onEdge: [-1, 1, 0], [0, 1, 0], from: [5, 0, -1], to: [5, 0, 1])
        #expect(end == [0, 1, 0])
    }
}
