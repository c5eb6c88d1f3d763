import Foundation

/// The README's benchmark table, written from one `backbeat bench --json`
/// report: one row per figure, one figure per cell (the median), the
/// reference it is measured against and its goal where it has them, and one
/// line under the table saying when, at which commit and on what machine
/// the run was made.
///
/// The rows are a fixed list (``readme``), so the table keeps its order and
/// wording from run to run; a figure the report does not have (a suite that
/// was not run) leaves its row out.
package struct BenchTable: Sendable {
    /// One row: a figure, how to print it, and what it is held against.
    package struct Row: Sendable, Equatable {
        /// `suite.key`, as in the report.
        package let figure: String
        /// What the figure measures, in a few words.
        package let label: String
        /// The unit printed after the value, such as `µs` or `×` (empty for a plain number).
        package let unit: String
        /// Decimals to print.
        package let decimals: Int
        /// `suite.key` of the figure measured side by side as its reference, if any.
        package let reference: String?
        /// The goal, as the project set it (empty when it has none).
        package let goal: String

        /// A row of the table.
        ///
        /// - Parameters:
        ///   - figure: `suite.key`, as in the report.
        ///   - label: What the figure measures, in a few words.
        ///   - unit: The unit printed after the value (empty for none).
        ///   - decimals: Decimals to print, 0 or more.
        ///   - reference: `suite.key` of the figure it is measured against, if any.
        ///   - goal: The goal (empty when it has none).
        package init(
            _ figure: String, _ label: String, unit: String = "", decimals: Int = 2, reference: String? = nil,
            goal: String = ""
        ) {
            self.figure = figure
            self.label = label
            self.unit = unit
            self.decimals = decimals
            self.reference = reference
            self.goal = goal
        }
    }

    /// The reports the table shows, in the order given: a suite's figures
    /// come from the last report that has the suite, so a run of some suites
    /// can stand beside an older run of the others (the ten-minute soak).
    package let reports: [BenchReport]
    /// The rows to show, in order.
    package let rows: [Row]

    /// A table of `report`.
    ///
    /// - Parameters:
    ///   - report: The run to show.
    ///   - rows: The rows to show, in order (default: the README's).
    package init(report: BenchReport, rows: [Row] = BenchTable.readme) {
        self.init(reports: [report], rows: rows)
    }

    /// A table of several runs, each suite from the last run that has it.
    ///
    /// - Parameters:
    ///   - reports: The runs to show, oldest first; at least one.
    ///   - rows: The rows to show, in order (default: the README's).
    package init(reports: [BenchReport], rows: [Row] = BenchTable.readme) {
        precondition(!reports.isEmpty, "a bench table needs a report")
        self.reports = reports
        self.rows = rows
    }

    /// The rows of the README's table.
    package static let readme: [Row] = [
        Row("mix.ratio_32", "mixing speed against raw OpenAL, 32 voices", unit: "×", goal: "≥ 0.95"),
        Row("mix.ratio_64", "the same, 64 voices", unit: "×", goal: "≥ 0.95"),
        Row("mix.ratio_max", "the same, 225 voices", unit: "×", goal: "≥ 0.95"),
        Row(
            "mix.xrealtime_64", "64 voices mixed, times real time", unit: "×", decimals: 0,
            reference: "mix.raw_xrealtime_64"),
        Row(
            "mix.ratio_env_64", "64 voices through a blended reverb, occluded, against raw OpenAL", unit: "×",
            goal: "≥ 0.95"),
        Row(
            "mix.xrealtime_env_64", "the same, times real time", unit: "×", decimals: 1,
            reference: "mix.raw_xrealtime_env_64"),
        Row("mix.max_sample_difference", "largest sample difference from raw OpenAL", decimals: 0, goal: "0"),
        Row("trigger.p50_us", "`play()` of a cached sound, median", unit: "µs", reference: "trigger.raw_p50_us"),
        Row(
            "trigger.p99_us", "`play()`, 99th percentile", unit: "µs", reference: "trigger.raw_p99_us",
            goal: "< 500 µs"),
        Row(
            "trigger.latency_frames", "frames from `play()` to the first frame mixed", decimals: 0,
            reference: "trigger.raw_latency_frames"),
        Row(
            "trigger.schedule_error_frames", "`play(at:)` error over 200 targets", unit: "frames", decimals: 0,
            goal: "0"),
        Row("trigger.event_us_p50", "a `SoundEvent` with three variations, median", unit: "µs"),
        Row("trigger.event_ratio_vs_play", "the same, against a plain `play()`", unit: "×"),
        Row("decode.ratio_vs_oggdec", "Ogg Vorbis decoding against `oggdec`", unit: "×", goal: "≥ 0.90"),
        Row("decode.float_ratio_vs_oggdec", "the same, Float32 output", unit: "×"),
        Row("decode.ratio_vs_opusdec", "Opus decoding against `opusdec`", unit: "×", goal: "≥ 0.90"),
        Row("decode.archive_ratio", "a song from a zip entry against the loose file", unit: "×", goal: "≥ 0.95"),
        Row(
            "decode.peak_mib_10min", "peak memory decoding a 10-minute song", unit: "MiB", decimals: 1,
            reference: "decode.floor_mib", goal: "< 32 MiB"),
        Row("stream.underruns", "underruns, 64 voices and a busy core", decimals: 0, goal: "0"),
        Row("stream.stream_pcm_bytes", "PCM held per stream, 1- and 60-minute songs", unit: "bytes", decimals: 0),
        Row(
            "library.scan_files_per_s", "first scan of 10,000 tagged files", unit: "files/s", decimals: 0,
            goal: "≥ 2,000"),
        Row("library.rescan_s", "rescan with nothing changed", unit: "s", decimals: 3, goal: "< 1 s"),
        Row("library.query_median_ms", "a query over 100,000 items, median", unit: "ms", goal: "< 5 ms"),
        Row("library.group_albums_ms", "grouping by album", unit: "ms", decimals: 1, goal: "< 50 ms"),
        Row(
            "library.group_albums_first_ms", "grouping by album, first time after a change", unit: "ms", decimals: 1,
            goal: "< 150 ms"),
        Row("soak.underruns", "underruns over the soak", decimals: 0, goal: "0"),
        Row("soak.leaked_sources", "OpenAL sources left after the soak", decimals: 0, goal: "0"),
        Row("soak.leaked_buffers", "OpenAL buffers left after the soak", decimals: 0, goal: "0"),
        Row("soak.rss_growth_mib", "memory growth over the soak", unit: "MiB", goal: "flat"),
        Row("device.cpu_ratio_vs_raw", "CPU on a real-time device against raw OpenAL", unit: "×", goal: "≤ 1.10"),
        Row("device.underruns", "underruns on the device", decimals: 0, goal: "0"),
        Row("device.underruns_low", "music underruns at `.low`, a core busy", decimals: 0, goal: "0"),
        Row(
            "device.dropouts_low", "silences heard at the sink at `.low`, a core busy (reference: pacat, same buffer)",
            decimals: 0, reference: "device.dropouts_control_low", goal: "0"),
        Row(
            "device.dropouts_raw_low", "the same for raw OpenAL at `.low` (reference: pacat)", decimals: 0,
            reference: "device.dropouts_control_low"),
        Row("device.latency_ms_low", "output latency at `.low`", unit: "ms", decimals: 1, goal: "≤ 10 ms"),
        Row("device.latency_ms_default", "output latency at `.default`", unit: "ms", decimals: 1, goal: "≤ 30 ms"),
        Row("device.trigger_to_sound_ms_p50", "`play()` to sound at the sink, median", unit: "ms", decimals: 1),
        Row(
            "device.trigger_to_sound_ms_p99", "`play()` to sound at the sink, 99th percentile", unit: "ms",
            decimals: 1),
        Row(
            "device.trigger_to_sound_ms_p50_low", "`play()` to sound at the sink at `.low`, median", unit: "ms",
            decimals: 1, goal: "≤ 12 ms"),
        Row(
            "device.trigger_to_sound_ms_p99_low", "`play()` to sound at the sink at `.low`, 99th percentile",
            unit: "ms", decimals: 1),
        Row("spatial.ratio_vs_raw", "255 moving 3D voices against raw OpenAL", unit: "×", goal: "≥ 2.0"),
        Row(
            "spatial.xrealtime", "the same scene, times real time", unit: "×", decimals: 0,
            reference: "spatial.raw_xrealtime"),
        Row("spatial.error_db", "difference from raw OpenAL's render", unit: "dB", decimals: 1, goal: "≤ -40 dB"),
        Row("spatial.hrtf_ratio_vs_raw", "the same scene with HRTF", unit: "×", goal: "≥ 3.0"),
        Row(
            "spatial.xrealtime_10k", "10,000 moving emitters, times real time", unit: "×", decimals: 0,
            reference: "spatial.raw64_xrealtime", goal: "≥ 150"),
        Row(
            "spatial.update_us_p99", "one `moveVoices` call moving 1,000 emitters, 99th percentile", unit: "µs",
            decimals: 1),
        Row(
            "monitor.snapshot_us_p99", "one monitor snapshot of 10,000 emitters, 256 listed, 99th percentile",
            unit: "µs", decimals: 0, goal: "≤ 200 µs"),
        Row(
            "monitor.cpu_ratio_off", "the device scene's CPU, monitoring on without a client, against off",
            unit: "×", goal: "≤ 1.01"),
        Row(
            "monitor.cpu_ratio_on", "the same with a client reading 10 snapshots a second, against off", unit: "×",
            goal: "≤ 1.05"),
        Row(
            "capture.trigger_overhead_us", "one `play()` with capture on, minus off, 99th percentile", unit: "µs",
            goal: "≤ 1.0"),
        Row(
            "capture.xrealtime_ratio", "the 255-emitter scene's speed with capture on, over off", unit: "×",
            goal: "≥ 0.95"),
        Row(
            "acoustics.xrealtime_10k",
            "10,000 moving emitters in a 100,000-triangle level, acoustics on, times real time",
            unit: "×", decimals: 0, reference: "acoustics.xrealtime_10k_off", goal: "≥ 150"),
        Row(
            "acoustics.device_underruns",
            "music underruns, the device scene in the level with acoustics on, a core busy",
            decimals: 0, reference: "acoustics.device_underruns_off", goal: "0"),
        Row(
            "capture.bytes_per_min_1000", "capture size per minute, 1,000 emitters moved 50 times a second",
            unit: "bytes", decimals: 0),
    ]

    /// The table in Markdown, then a blank line and the run's line.
    package var markdown: String {
        var lines = ["| figure | what | value | reference | goal |", "|---|---|---:|---:|---|"]
        for row in rows {
            guard let report = source(of: row.figure), let value = Self.value(of: row.figure, in: report) else {
                continue
            }
            let reference = row.reference.flatMap { Self.value(of: $0, in: report) }
            lines.append(
                "| `\(row.figure)` | \(row.label) | \(Self.format(value, row)) | "
                    + "\(reference.map { Self.format($0, row) } ?? "") | \(row.goal) |")
        }
        lines.append("")
        lines.append(runLine)
        return lines.joined(separator: "\n")
    }

    /// The report a figure's suite is taken from: the last that has the suite.
    private func source(of figure: String) -> BenchReport? {
        let suite = figure.prefix { $0 != "." }
        return reports.last { $0.suites[String(suite)] != nil }
    }

    /// The line (or, for several runs, the lines) under the table: each
    /// run's date, commit and machine, and which suites the table took from it.
    package var runLine: String {
        guard reports.count > 1 else { return Self.runLine(of: reports[0]) }
        var lines: [String] = []
        for (index, report) in reports.enumerated() {
            let later = reports[(index + 1)...]
            let used = report.suites.keys.filter { suite in !later.contains { $0.suites[suite] != nil } }.sorted()
            guard !used.isEmpty else { continue }
            // A Markdown list, so each run keeps a line of its own.
            lines.append("- \(used.joined(separator: ", ")): " + Self.runLine(of: report))
        }
        return lines.joined(separator: "\n")
    }

    /// The line under the table for one run: date, commit and machine, from the report's `run`.
    private static func runLine(of report: BenchReport) -> String {
        let run = report.run
        let commit = run.commit == "unknown" ? "an unknown commit" : "commit \(run.commit.prefix(7))"
        let dirty = run.commit.hasSuffix("-dirty") ? " (with uncommitted changes)" : ""
        let cores = run.cores > 0 ? ", \(run.cores) cores" : ""
        let load =
            run.load.map { l in
                "; load \(String(format: "%.2f", l.start))" + (l.end.map { String(format: " → %.2f", $0) } ?? "")
            } ?? ""
        let rounds = run.rounds > 0 ? ", \(run.rounds) rounds" : ""
        let quick = run.quick ? ", quick sizes" : ""
        let machine = "\(run.cpu)\(cores)\(load)\(rounds)\(quick)"
        return "Run of \(run.date) at \(commit)\(dirty) on \(machine); OpenAL \(run.openAL)."
    }

    /// The figure `suite.key` of `report` (its median), if it has it.
    private static func value(of figure: String, in report: BenchReport) -> Double? {
        guard let dot = figure.firstIndex(of: ".") else { return nil }
        return report.suites[String(figure[..<dot])]?[String(figure[figure.index(after: dot)...])]
    }

    /// `value` with the row's decimals and unit: `1.36×`, `7,451 files/s`, `0.76 ms`.
    static func format(_ value: Double, _ row: Row) -> String {
        var number = String(format: "%.\(max(0, row.decimals))f", value)
        // Thousands are grouped in counts (7,451 files/s) and from 10,000 on.
        if abs(value) >= 10_000 || row.decimals == 0 && abs(value) >= 1_000 { number = grouped(number) }
        switch row.unit {
        case "": return number
        case "×": return number + "×"
        default: return "\(number) \(row.unit)"
        }
    }

    /// `number` (as `%f` prints it) with a comma between thousands.
    private static func grouped(_ number: String) -> String {
        let sign = number.hasPrefix("-") ? "-" : ""
        let digits = number.dropFirst(sign.count)
        let integer = digits.prefix { $0 != "." }
        var out = ""
        for (index, digit) in integer.enumerated() {
            if index > 0, (integer.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return sign + out + digits.dropFirst(integer.count)
    }
}
