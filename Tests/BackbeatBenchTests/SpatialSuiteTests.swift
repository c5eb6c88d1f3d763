import BackbeatBench
import Foundation
import Testing

@Suite("Spatial benchmark suite")
struct SpatialSuiteTests {
    @Test("A quick run reports every spatial figure, finite")
    func quickRunFigures() throws {
        let figures = try SpatialSuite().run(BenchOptions(quick: true, rounds: 1), log: { _ in })
        let byKey = Dictionary(figures.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        for key in [
            "ratio_vs_raw", "error_db", "xrealtime_10k", "raw64_xrealtime", "hrtf_ratio_vs_raw", "update_us_p99",
        ] {
            let value = try #require(byKey[key], "figure \(key)")
            #expect(value.isFinite, "\(key) = \(value)")
        }
    }

    @Test("The scene keeps about the asked number of emitters audible, and moves them")
    func sceneAudibility() {
        let scene = SpatialScene(count: 255, audibleTarget: 50)
        let counts = stride(from: 0.0, to: 20, by: 0.25).map { scene.audibleCount(at: $0) }
        let mean = Double(counts.reduce(0, +)) / Double(counts.count)
        #expect(mean > 35 && mean < 65, "mean \(mean) audible")
        let moved = scene.emitters.filter { scene.position(of: $0, at: 0) != scene.position(of: $0, at: 1) }
        #expect(moved.count == 255)
    }

    @Test("The 10,000-emitter scene keeps about 50 audible too, not a few hundred")
    func largeSceneAudibility() {
        let scene = SpatialScene(count: 10_000, audibleTarget: 50)
        let counts = stride(from: 0.0, to: 10, by: 0.5).map { scene.audibleCount(at: $0) }
        let mean = Double(counts.reduce(0, +)) / Double(counts.count)
        #expect(mean > 35 && mean < 65, "mean \(mean) audible")
        #expect(counts.max()! < 100, "at most \(counts.max()!) audible")
    }

    @Test(
        "Dropping the inaudible emitters and bringing them back in place leaves the render within -40 dB of raw OpenAL's"
    )
    func rendersLikeRawOpenAL() throws {
        let scene = SpatialScene(count: 60, audibleTarget: 12)
        let (error, rms) = try SpatialSuite().errorDecibels(scene, seconds: 6)
        #expect(rms > 0.01)
        #expect(error < -40, "difference \(error) dB")
    }
}
