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

    /// A generated 2,000,000-triangle OBJ (no file) is refused at the line
    /// of its 1,000,001st triangle, and the process's peak resident memory
    /// grows by at most 96 MiB while it is read: the million triangles read
    /// until then (12 bytes each, in arrays that double) and the reader's
    /// buffers, never the 600 MiB a built 2,000,000-triangle scene would
    /// take. The bound leaves room for tests running beside it.
    ///
    /// Each face is a polygon of 1,002 corners, which the reader fans into
    /// 1,000 triangles, so the limit falls exactly between two lines: the
    /// 1,000th face brings the count to the limit and must be kept, the
    /// 1,001st must be refused whole. A million one-triangle lines proved
    /// the same at four times the cost in a debug build: nearly all of it
    /// was the reader splitting a million lines.
    @Test func aTwoMillionTriangleLevelIsRefusedWithinNinetySixMebibytes() throws {
        let header = Array("v 0 0 0\nv 1 0 0\nv 0 1 0\n".utf8)
        // "f 1 2 3 2 3 2 … 3 2": 1,002 corners, 1,000 triangles, each of vertices 1, 2 and 3.
        var face = Array("f 1 2".utf8)
        for _ in 0..<500 { face.append(contentsOf: " 3 2".utf8) }
        face.append(UInt8(ascii: "\n"))
        var bytes = header
        bytes.reserveCapacity(header.count + face.count * 2_000)
        for _ in 0..<2_000 { bytes.append(contentsOf: face) }
        let before = try Self.peakResidentBytes()
        let error = #expect(throws: BackbeatError.self) { try AcousticLevel(objBytes: bytes) }
        let growth = try Self.peakResidentBytes() - before
        #expect(error?.code == .levelTooLarge)
        #expect(error?.reason?.hasPrefix("line 1004: ") == true, "\(error?.reason ?? "")")
        #expect(growth <= 96 << 20, "peak resident memory grew by \(growth >> 20) MiB")
    }
}
