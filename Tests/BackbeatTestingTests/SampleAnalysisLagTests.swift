import BackbeatTesting
import Testing

@Suite("Sample analysis: cross-correlation")
struct SampleAnalysisLagTests {
    @Test("The lag of a delayed copy is its delay, either way round", arguments: [0, 7, 31])
    func delayedCopy(delay: Int) {
        var state: UInt32 = 12_345
        let noise: [Float] = (0..<2_000).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(state >> 8) / Float(1 << 24) - 0.5
        }
        let delayed = [Float](repeating: 0, count: delay) + noise.dropLast(delay)
        #expect(SampleAnalysis.crossCorrelationLag(noise, delayed, maximumLag: 48) == delay)
        #expect(SampleAnalysis.crossCorrelationLag(delayed, noise, maximumLag: 48) == -delay)
        #expect(SampleAnalysis.crossCorrelationLag(noise, delayed, maximumLag: -3) == 0)
    }
}
