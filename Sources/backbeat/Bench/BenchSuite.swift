import Foundation

/// One benchmark suite: measures Backbeat and its reference side by side, in
/// one run, and reports figures under stable names (`suite.figure`).
protocol BenchSuite: Sendable {
    /// The suite's name on the command line and in JSON, such as `mix`.
    var name: String { get }
    /// One line saying what it compares.
    var summary: String { get }
    /// Runs the suite. `quick` asks for a tiny size (used by tests and smoke runs).
    func run(quick: Bool, log: (String) -> Void) throws -> [Figure]
}

/// One measured figure.
struct Figure {
    /// The stable key within its suite, such as `ratio_64`.
    let key: String
    let value: Double
    /// Unit and meaning for the table, such as `× raw OpenAL`.
    let unit: String
}

/// Every suite, in the order `backbeat bench` runs them.
enum BenchSuites {
    static let all: [any BenchSuite] = [DecodeSuite(), LibrarySuite(), StreamSuite()]
}

/// Peak resident memory of this process (VmHWM), in MiB.
func peakResidentMiB() -> Double {
    residentField("VmHWM")
}

/// Current resident memory of this process (VmRSS), in MiB.
func residentMiB() -> Double {
    residentField("VmRSS")
}

private func residentField(_ field: String) -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        let kb = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return kb / 1024
    }
    return 0
}

/// Monotonic nanoseconds, for timing benchmarks only (never behaviour).
func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// The value at quantile `q` (0...1) of `values`.
func percentile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let index = min(sorted.count - 1, max(0, Int((q * Double(sorted.count - 1)).rounded())))
    return sorted[index]
}
