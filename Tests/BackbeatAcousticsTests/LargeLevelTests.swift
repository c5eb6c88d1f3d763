import BackbeatSupport
import Foundation
import Testing

@testable import BackbeatAcoustics

/// A level far above the limit costs no more than what is read before the limit.
@Suite struct LargeLevelTests {
    /// The process's peak resident memory so far, in bytes (VmHWM).
    static func peakResidentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kibibytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kibibytes * 1_024
    }

    /// A generated 2,000,000-triangle OBJ (16 MB of text, no file) is
    /// refused at the line of its 1,000,001st triangle, and the process's
    /// peak resident memory grows by at most 96 MiB while it is read: the
    /// million triangles read until then (12 bytes each, in arrays that
    /// double) and the reader's buffers, never the 600 MiB a built
    /// 2,000,000-triangle scene would take. The bound leaves room for tests
    /// running beside it.
    @Test func aTwoMillionTriangleLevelIsRefusedWithinNinetySixMebibytes() throws {
        let header = Array("v 0 0 0\nv 1 0 0\nv 0 1 0\n".utf8)
        let face = Array("f 1 2 3\n".utf8)
        var bytes = header
        bytes.reserveCapacity(header.count + face.count * 2_000_000)
        for _ in 0..<2_000_000 { bytes.append(contentsOf: face) }
        let before = try Self.peakResidentBytes()
        let error = #expect(throws: BackbeatError.self) { try AcousticLevel(objBytes: bytes) }
        let growth = try Self.peakResidentBytes() - before
        #expect(error?.code == .levelTooLarge)
        #expect(error?.reason?.hasPrefix("line 1000004: ") == true, "\(error?.reason ?? "")")
        #expect(growth <= 96 << 20, "peak resident memory grew by \(growth >> 20) MiB")
    }
}
