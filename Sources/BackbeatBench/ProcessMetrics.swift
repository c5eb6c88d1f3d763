import Foundation

/// Peak resident memory of this process (VmHWM), in MiB.
public func peakResidentMiB() -> Double {
    residentField("VmHWM")
}

/// Current resident memory of this process (VmRSS), in MiB.
public func residentMiB() -> Double {
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
public func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// The value at quantile `q` (0...1) of `values` (nearest rank).
public func percentile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let index = min(sorted.count - 1, max(0, Int((q * Double(sorted.count - 1)).rounded())))
    return sorted[index]
}
