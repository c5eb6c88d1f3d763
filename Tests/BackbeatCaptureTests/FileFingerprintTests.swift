import BackbeatCapture
import BackbeatSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A capture names files; a path that names a device or a pipe instead (a
/// hostile or mistaken capture) is refused at once, never read forever.
@Suite struct FileFingerprintTests {
    @Test("A device or a FIFO is refused, by the fingerprint and by the capture reader, without blocking")
    func devicesAndPipesAreRefused() throws {
        #expect(throws: BackbeatError.self) { _ = try FileFingerprint(of: URL(fileURLWithPath: "/dev/zero")) }
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("capture-fifo-\(UUID().uuidString)")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(at: fifo) }
        #expect(throws: BackbeatError.self) { _ = try FileFingerprint(of: fifo) }
        do {
            _ = try CaptureFileReader(url: fifo)
            Issue.record("a FIFO was read as a capture")
        } catch let error as BackbeatError {
            #expect(error.code == .notACapture)
        }
    }

    @Test("A regular file's fingerprint is its size and FNV-1a hash")
    func regularFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("capture-fp-\(UUID().uuidString)")
        try Data("a".utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let print = try FileFingerprint(of: url)
        #expect(print.size == 1)
        #expect(print.hash == 0xaf63_dc4c_8601_ec8c)  // FNV-1a 64 of "a"
    }
}
