import Foundation
import Testing

@testable import BackbeatBench

/// The decode suite's memory figure is the child's own: the same `backbeat
/// convert`, spawned by a parent holding 200 MiB, reports what it reports
/// from a small parent. Asserts on reported memory, never on time.
@Suite("Child peak memory")
struct ChildPeakMemoryTests {
    @Test("A child's reported peak does not depend on the size of the parent that spawned it")
    func peakIsTheChildsOwn() async throws {
        let executable = try Self.backbeatExecutable()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "backbeat-peak-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ogg = directory.appendingPathComponent("in.ogg")
        let wav = directory.appendingPathComponent("out.wav")
        try await DecodeSuite.writeInput(ogg, seconds: 2)

        // Small parent first: the kernel's carried-over mark only ever grows.
        let fromSmallParent = try DecodeSuite.convertPeakMiB(executable: executable, input: ogg, output: wav)
        let (fromLargeParent, carriedOver) = try Self.holdingResident(mebibytes: 200) {
            (
                try DecodeSuite.convertPeakMiB(executable: executable, input: ogg, output: wav),
                Double(try spawn(executable, ["convert", "--help"]).usage.ru_maxrss) / 1024
            )
        }
        // What is tested is the absence of a 200 MiB carry-over, so the tolerance is far below that
        // but wider than the few MiB a sanitizer's shadow memory moves from one run to the next.
        #expect(
            abs(fromLargeParent - fromSmallParent) <= 8,
            "small parent \(fromSmallParent) MiB, large parent \(fromLargeParent) MiB")
        // The control: what wait4 says about a child of the large parent is at least the parent's size,
        // far above what the child reports of itself.
        #expect(carriedOver >= 200, "ru_maxrss of a child of a 200 MiB parent: \(carriedOver) MiB")
        #expect(fromLargeParent > 1 && fromLargeParent < carriedOver - 150)
    }

    @Test("The floor is the same program doing nothing: below a conversion's peak")
    func floorIsBelowPeak() async throws {
        let executable = try Self.backbeatExecutable()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "backbeat-floor-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ogg = directory.appendingPathComponent("in.ogg")
        try await DecodeSuite.writeInput(ogg, seconds: 2)
        let floor = try DecodeSuite.floorMiB(executable: executable)
        let peak = try DecodeSuite.convertPeakMiB(
            executable: executable, input: ogg, output: directory.appendingPathComponent("out.wav"))
        #expect(floor > 1 && floor < peak, "floor \(floor) MiB, peak \(peak) MiB")
    }

    @Test("A child that exits without reporting is an error, not a zero")
    func missingReportThrows() throws {
        #expect(throws: BenchError.self) { try ChildPeakMemory.spawnMeasuringPeak("/bin/true", []) }
    }

    /// The `backbeat` executable built next to this test bundle.
    static func backbeatExecutable() throws -> String {
        let runner = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let path = (runner as NSString).deletingLastPathComponent + "/backbeat"
        try #require(
            FileManager.default.isExecutableFile(atPath: path), "build the backbeat executable first (swift build)")
        return path
    }

    /// Runs `body` while this process holds `mebibytes` of touched, resident memory.
    static func holdingResident<T>(mebibytes: Int, _ body: () throws -> T) rethrows -> T {
        let count = mebibytes << 20
        let block = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 4_096)
        defer { block.deallocate() }
        memset(block, 0x5A, count)
        return try withExtendedLifetime(block) { try body() }
    }
}
