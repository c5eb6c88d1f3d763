import BackbeatBench
import Foundation
import Testing

/// `backbeat bench show --markdown`: the README's table from a report.
@Suite("Bench table")
struct BenchTableTests {
    /// A small report as `backbeat bench --json` writes it: two suites, one
    /// figure over rounds with its companions, a reference, and no spatial suite.
    static let json = #"""
        {
          "mix" : {
            "ratio_64" : 0.9859, "ratio_64_min" : 0.7841, "ratio_64_max" : 1.0262,
            "xrealtime_64" : 163.556, "raw_xrealtime_64" : 164.54,
            "max_sample_difference" : 0
          },
          "library" : {
            "scan_files_per_s" : 7451.05, "scan_files_per_s_min" : 6566.2, "scan_files_per_s_max" : 12691.2,
            "query_median_ms" : 0.7565
          },
          "run" : {
            "commit" : "02b59fbc7a1c39b475ea4043cc8b351d234d25f0", "cores" : 2, "cpu" : "AMD EPYC",
            "date" : "2026-11-23T09:23:31Z", "load_end" : 2.87, "load_start" : 1.02,
            "openal" : "1.1 ALSOFT 1.19.1 (OpenAL Soft)", "quick" : false, "rounds" : 5
          }
        }
        """#

    @Test("Each row shows the median alone, its reference and its goal; rows the run lacks are left out")
    func rows() throws {
        let report = try BenchReport(json: Data(Self.json.utf8), name: "small.json")
        let lines = BenchTable(report: report).markdown.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            lines == [
                "| figure | what | value | reference | goal |",
                "|---|---|---:|---:|---|",
                "| `mix.ratio_64` | the same, 64 voices | 0.99× |  | ≥ 0.95 |",
                "| `mix.xrealtime_64` | 64 voices mixed, times real time | 164× | 165× |  |",
                "| `mix.max_sample_difference` | largest sample difference from raw OpenAL | 0 |  | 0 |",
                "| `library.scan_files_per_s` | first scan of 10,000 tagged files | 7,451 files/s |  | ≥ 2,000 |",
                "| `library.query_median_ms` | a query over 100,000 items, median | 0.76 ms |  | < 5 ms |",
                "",
                "Run of 2026-11-23T09:23:31Z at commit 02b59fb on AMD EPYC, 2 cores; load 1.02 → 2.87, 5 rounds; "
                    + "OpenAL 1.1 ALSOFT 1.19.1 (OpenAL Soft).",
            ])
        // One figure per cell: no range, no history.
        #expect(!lines.contains { $0.contains("–") || $0.contains("(0.78") })
    }

    @Test("A run without a header says so instead of inventing one")
    func unknownRun() throws {
        let report = try BenchReport(
            json: Data(#"{"trigger": {"p50_us": 1.9, "raw_p50_us": 0.15}}"#.utf8), name: "old.json")
        let table = BenchTable(report: report).markdown
        #expect(table.contains("| `trigger.p50_us` | `play()` of a cached sound, median | 1.90 µs | 0.15 µs |  |"))
        #expect(table.hasSuffix("Run of unknown at an unknown commit on unknown; OpenAL unknown."))
    }

    @Test("The README rows are distinct suite.key names")
    func readmeRows() {
        #expect(Set(BenchTable.readme.map(\.figure)).count == BenchTable.readme.count)
        #expect(BenchTable.readme.allSatisfy { $0.figure.split(separator: ".").count == 2 })
    }

    @Test("Several runs: each suite from the last run that has it, a line for each run used")
    func severalRuns() throws {
        let old = try BenchReport(json: Data(Self.json.utf8), name: "old.json")
        let soak = try BenchReport(
            json: Data(
                #"""
                {"mix": {"ratio_64": 1.25},
                 "soak": {"leaked_buffers": 0},
                 "run": {"commit": "abcdef0123", "cores": 2, "cpu": "AMD EPYC", "date": "2026-11-26T12:00:00Z",
                         "openal": "1.1 ALSOFT 1.19.1 (OpenAL Soft)", "rounds": 3}}
                """#.utf8), name: "new.json")
        let table = BenchTable(reports: [old, soak]).markdown
        #expect(table.contains("| `mix.ratio_64` | the same, 64 voices | 1.25× |  | ≥ 0.95 |"))
        // The newer mix suite replaces the older one whole: no figure of the old mix run is left.
        #expect(!table.contains("mix.xrealtime_64"))
        #expect(table.contains("| `library.query_median_ms` | a query over 100,000 items, median | 0.76 ms |"))
        #expect(table.contains("| `soak.leaked_buffers` | OpenAL buffers left after the soak | 0 |  | 0 |"))
        #expect(table.contains("\n- library: Run of 2026-11-23T09:23:31Z at commit 02b59fb"))
        #expect(
            table.hasSuffix(
                "- mix, soak: Run of 2026-11-26T12:00:00Z at commit abcdef0 on AMD EPYC, 2 cores, 3 rounds; OpenAL 1.1 ALSOFT 1.19.1 (OpenAL Soft)."
            ))
    }
}
