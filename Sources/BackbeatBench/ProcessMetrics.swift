import Foundation

/// Peak resident memory of this process (VmHWM), in MiB.
package func peakResidentMiB() -> Double {
    residentField("VmHWM")
}

/// Current resident memory of this process (VmRSS), in MiB.
package func residentMiB() -> Double {
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

/// This process's CPU time so far, every thread's, user and system, in
/// seconds: `CLOCK_PROCESS_CPUTIME_ID`, which the kernel keeps in
/// nanoseconds (not in scheduler ticks, as `/proc/PID/stat` reports it).
package func processCPUSeconds() -> Double {
    var time = timespec()
    guard clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 else { return .nan }
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The calling thread's CPU time so far, in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`).
package func threadCPUNanoseconds() -> UInt64 {
    var time = timespec()
    guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time) == 0 else { return 0 }
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// How long the calling thread has been ready to run but waited for a core,
/// in nanoseconds (the second field of Linux's `/proc/thread-self/schedstat`;
/// 0 where it cannot be read). A thread's wall time is its CPU time, this
/// wait, and the time it slept (for a lock, say).
package func threadRunDelayNanoseconds() -> UInt64 {
    guard let text = try? String(contentsOfFile: "/proc/thread-self/schedstat", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count >= 2 else { return 0 }
    return UInt64(fields[1].trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
}

/// Monotonic nanoseconds, for timing benchmarks only (never behaviour).
package func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// The value at quantile `q` (0...1) of `values` by the nearest-rank rule:
/// the smallest value with at least a fraction `q` of the values at or below
/// it, `sorted[⌈q·n⌉ − 1]` (the smallest for `q` = 0; 0 when empty). Every
/// suite's percentiles (p50, p99) use it, so a p99 never reports a value
/// below the 99th in 100.
package func percentile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let sorted = values.sorted()
    let rank = Int((min(max(q, 0), 1) * Double(sorted.count)).rounded(.up))
    return sorted[min(sorted.count - 1, max(0, rank - 1))]
}
