import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process's peak resident memory, read by the child from its own image.
///
/// `ru_maxrss` from `wait4` cannot measure a child: Linux carries the
/// process's high-water mark across `execve`, so a child spawned by a
/// 200 MiB parent reports at least 200 MiB even if it runs `/bin/true`
/// (`posix_spawn` shares the parent's memory until the exec, and the child's
/// own `getrusage` starts from the same inherited mark). `VmHWM` in
/// `/proc/self/status` belongs to the memory image, which `execve` replaces,
/// so it counts only what the child itself touched. A reaped child has no
/// status left to read, so the child reads it as it exits and writes it to a
/// file the parent names in ``environmentKey``.
package enum ChildPeakMemory {
    /// The environment variable naming the file a `backbeat` child writes its
    /// `VmHWM` to (one line, KiB) as it exits.
    package static let environmentKey = "BACKBEAT_PEAK_MEMORY_FILE"

    /// When ``environmentKey`` is set, arranges for this process to write its
    /// peak resident memory there at exit. The `backbeat` executable calls it first.
    package static func reportAtExitIfAsked() {
        guard getenv(environmentKey) != nil else { return }
        atexit { ChildPeakMemory.writeReport() }
    }

    /// Runs `executable` with `arguments` (output discarded), asking it for its
    /// peak; returns its exit status and its own peak resident memory in MiB.
    ///
    /// - Throws: ``BenchError`` when it cannot start or reports no peak.
    package static func spawnMeasuringPeak(_ executable: String, _ arguments: [String]) throws -> (
        status: Int32, peakMiB: Double
    ) {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("backbeat-peak-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: report) }
        let (status, _) = try spawn(executable, arguments, environment: [environmentKey: report.path])
        guard let text = try? String(contentsOf: report, encoding: .utf8),
            let kib = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), kib > 0
        else {
            throw BenchError("\(executable) \(arguments.first ?? "") (status \(status)) reported no peak memory")
        }
        return (status, kib / 1024)
    }

    /// Writes this process's `VmHWM` (KiB) to the file ``environmentKey`` names.
    /// Runs at exit, so it sticks to plain system calls.
    private static func writeReport() {
        guard let path = getenv(environmentKey) else { return }
        let status = open("/proc/self/status", O_RDONLY)
        guard status >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 8_192)
        let length = buffer.withUnsafeMutableBytes { read(status, $0.baseAddress, $0.count - 1) }
        close(status)
        guard length > 0 else { return }
        let text = String(decoding: buffer[0..<length], as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kib = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return }
        let out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard out >= 0 else { return }
        let bytes = Array("\(kib)\n".utf8)
        _ = bytes.withUnsafeBytes { write(out, $0.baseAddress, $0.count) }
        close(out)
    }
}
