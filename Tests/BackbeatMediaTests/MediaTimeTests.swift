import Backbeat
import Testing

@Suite("MediaTime")
struct MediaTimeTests {
    @Test("Converting between timescales is exact when it can be")
    func exactConversion() {
        let second = MediaTime(value: 44_100, timescale: 44_100)
        #expect(second.converted(to: 48_000).value == 48_000)
        #expect(second == MediaTime(value: 1, timescale: 1))
        #expect(MediaTime(value: 3, timescale: 4).isExact(at: 1000))
        #expect(!MediaTime(value: 1, timescale: 3).isExact(at: 1000))
    }

    @Test(
        "Rounding is explicit",
        arguments: [
            (MediaTime.Rounding.nearest, Int64(333), Int64(-333)),
            (.down, 333, -334),
            (.up, 334, -333),
            (.towardZero, 333, -333),
        ])
    func rounding(mode: MediaTime.Rounding, positive: Int64, negative: Int64) {
        #expect(MediaTime(value: 1, timescale: 3).converted(to: 1000, rounding: mode).value == positive)
        #expect(MediaTime(value: -1, timescale: 3).converted(to: 1000, rounding: mode).value == negative)
    }

    @Test("Negating Int64.min saturates instead of trapping")
    func negationSaturates() {
        #expect(-MediaTime(value: .min, timescale: 1_000_000) == MediaTime(value: .max, timescale: 1_000_000))
        #expect(-MediaTime(value: .max, timescale: 7) == MediaTime(value: -.max, timescale: 7))
        #expect(-MediaTime(value: 5, timescale: 2) == MediaTime(value: -5, timescale: 2))
    }

    @Test("Half rounds away from zero")
    func half() {
        #expect(MediaTime(value: 1, timescale: 2).converted(to: 1).value == 1)
        #expect(MediaTime(value: -1, timescale: 2).converted(to: 1).value == -1)
    }

    @Test("Arithmetic and comparison work across timescales")
    func arithmetic() {
        let a = MediaTime(value: 1, timescale: 3)
        let b = MediaTime(value: 1, timescale: 6)
        #expect(a + b == MediaTime(value: 1, timescale: 2))
        #expect(a - b == b)
        #expect(b < a)
        #expect(MediaTime(frames: 44_100, sampleRate: 44_100) == MediaTime(frames: 48_000, sampleRate: 48_000))
        #expect(Set([MediaTime(value: 2, timescale: 4), MediaTime(value: 1, timescale: 2)]).count == 1)
        #expect(a * 3 == MediaTime(value: 1, timescale: 1))
        #expect(MediaTime.max(a, b) == a)
    }

    @Test("Seconds and frame counts")
    func framesAndSeconds() {
        let t = MediaTime(seconds: 1.5)
        #expect(t.seconds == 1.5)
        #expect(t.frames(atSampleRate: 48_000) == 72_000)
        #expect(MediaTime(seconds: .nan).value == 0)
    }

    @Test(
        "m:ss formatting",
        arguments: [
            (0.0, "0:00"), (5.9, "0:05"), (83.0, "1:23"), (3_600.0, "1:00:00"), (-61.0, "-1:01"),
        ])
    func formatting(seconds: Double, text: String) {
        #expect(MediaTime(seconds: seconds).formatted == text)
    }
}
