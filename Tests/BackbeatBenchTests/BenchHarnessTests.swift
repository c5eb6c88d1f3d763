import BackbeatBench
import Foundation
import Testing

/// The harness every suite shares: interleaved rounds, figures with their
/// spread, the JSON report and the comparison of two reports.
@Suite("Bench harness")
struct BenchHarnessTests {
    @Test("Rounds alternate which side goes first and keep each side's values in round order")
    func interleavedRoundsAlternate() throws {
        var calls: [String] = []
        var b = 0.0
        var r = 100.0
        let values = try Rounds.interleaved(
            5,
            sides: [
                {
                    calls.append("B")
                    b += 1
                    return b
                },
                {
                    calls.append("R")
                    r += 1
                    return r
                },
            ])
        #expect(calls == ["B", "R", "R", "B", "B", "R", "R", "B", "B", "R"])
        #expect(values == [[1, 2, 3, 4, 5], [101, 102, 103, 104, 105]])
        #expect(Rounds.ratios(values[0], values[1]).count == 5)
    }

    @Test("A figure over rounds is their median, with _min and _max companions")
    func figureCompanions() {
        let figure = Figure(key: "ratio_64", rounds: [0.95, 1.01, 0.90, 0.98, 0.97], unit: "×")
        #expect(figure.value == 0.97)
        #expect(figure.reported.map(\.key) == ["ratio_64", "ratio_64_min", "ratio_64_max"])
        #expect(figure.reported.map(\.value) == [0.97, 0.90, 1.01])
        #expect(Figure(key: "voices_max", value: 225, unit: "voices").reported.map(\.key) == ["voices_max"])
        #expect(median([4, 1, 3, 2]) == 2.5)
    }

    @Test("A report reads back what it wrote, run description included")
    func reportRoundTrip() throws {
        let run = BenchRun(
            commit: "0123456789abcdef0123456789abcdef01234567", openAL: "1.1 ALSOFT 1.19.1 (OpenAL Soft)",
            cpu: "Some CPU", cores: 2, date: "2026-01-02T03:04:05Z", rounds: 5, quick: false, load: (0.25, 1.5))
        let report = BenchReport(
            run: run,
            results: [
                (
                    "mix",
                    [
                        Figure(key: "ratio_64", rounds: [0.9, 1.0, 0.95], unit: "×"),
                        Figure(key: "voices_max", value: 225, unit: "voices"),
                    ]
                )
            ])
        let read = try BenchReport(json: try report.json(), name: "a.json")
        #expect(read.run == run)
        #expect(read.run.summary.hasSuffix("5 rounds, load 0.25 → 1.50"))
        #expect(
            read.suites == ["mix": ["ratio_64": 0.95, "ratio_64_min": 0.9, "ratio_64_max": 1.0, "voices_max": 225]])
        let older = try BenchReport(json: Data(#"{"mix": {"ratio_64": 0.9}}"#.utf8), name: "old.json")
        #expect(older.run.commit == "unknown")
        #expect(throws: BenchError.self) {
            try BenchReport(json: Data(#"{"mix": {"ratio_64": "fast"}}"#.utf8), name: "bad.json")
        }
        #expect(throws: BenchError.self) { try BenchReport(json: Data("[1]".utf8), name: "bad.json") }
    }

    @Test("Overlapping ranges are noise; disjoint ones are not; single values say so")
    func comparisonVerdicts() throws {
        let old = try BenchReport(
            json: Data(
                """
                {"mix": {"ratio_64": 0.95, "ratio_64_min": 0.90, "ratio_64_max": 0.99,
                         "ratio_32": 0.95, "ratio_32_min": 0.93, "ratio_32_max": 0.97, "voices_max": 225, "gone": 1},
                 "library": {"group_albums_ms": 57.6, "group_albums_ms_min": 55, "group_albums_ms_max": 60}}
                """.utf8), name: "old")
        let new = try BenchReport(
            json: Data(
                """
                {"mix": {"ratio_64": 0.97, "ratio_64_min": 0.96, "ratio_64_max": 1.0,
                         "ratio_32": 1.02, "ratio_32_min": 1.0, "ratio_32_max": 1.04, "voices_max": 225},
                 "library": {"group_albums_ms": 25, "group_albums_ms_min": 24, "group_albums_ms_max": 27}, "trigger": {"p50_us": 1.4}}
                """.utf8), name: "new")
        let comparison = BenchComparison(old: old, new: new)
        let verdicts = Dictionary(uniqueKeysWithValues: comparison.rows.map { ($0.figure, $0.verdict) })
        #expect(
            verdicts == [
                "mix.ratio_64": .noise, "mix.ratio_32": .beyondNoise, "mix.voices_max": .same, "mix.gone": .onlyOld,
                "library.group_albums_ms": .beyondNoise, "trigger.p50_us": .onlyNew,
            ])
        let albums = try #require(comparison.rows.first { $0.figure == "library.group_albums_ms" })
        #expect(abs((albums.change ?? 0) + 0.566) < 0.001)
        let table = comparison.table(oldName: "old.json", newName: "new.json")
        #expect(
            table.contains(
                "| mix.ratio_64 | 0.950 (0.900–0.990) | 0.970 (0.960–1) | +2.1% | ~ noise (ranges overlap) |"))
        #expect(!table.contains("ratio_64_min"))
    }

    @Test("Percentiles follow the nearest-rank rule: the smallest value with at least that fraction at or below it")
    func percentilesAreNearestRank() {
        let hundred = (1...100).map(Double.init).shuffled()
        #expect(percentile(hundred, 0.99) == 99)
        #expect(percentile(hundred, 0.5) == 50)
        #expect(percentile(hundred, 1) == 100)
        #expect(percentile(hundred, 0) == 1)
        // 96 values, as the device suite's trigger calls: p99 is the largest (rank 96).
        let triggers = (1...96).map(Double.init)
        #expect(percentile(triggers, 0.99) == 96)
        #expect(percentile(triggers, 0.5) == 48)
        #expect(percentile([2, 1], 0.5) == 1)
        #expect(percentile([], 0.5) == 0)
    }
}
