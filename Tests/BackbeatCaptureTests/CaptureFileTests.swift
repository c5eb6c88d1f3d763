import BackbeatCapture
import BackbeatSupport
import Foundation
import Testing

@Suite("Capture file: format, writer and reader")
struct CaptureFileTests {
    private func temporaryURL(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("capture-\(UUID().uuidString)-\(name)")
    }

    @Test func encoderAndDecoderRoundTripEveryValue() throws {
        var encoder = CaptureEncoder()
        encoder.append(UInt64.max)
        encoder.append(Int64.min)
        encoder.append(-3)
        encoder.append(Float(-0.0))
        encoder.append(Double.pi)
        encoder.append("snäre.wav")
        encoder.append(true)
        encoder.appendOptional(nil as Int?) { $0.append($1) }
        encoder.appendOptional(7 as Int?) { $0.append($1) }
        var decoder = CaptureDecoder(encoder.bytes[...])
        #expect(try decoder.uint64() == UInt64.max)
        #expect(try decoder.int64() == Int64.min)
        #expect(try decoder.int() == -3)
        #expect(try decoder.float().bitPattern == Float(-0.0).bitPattern)
        #expect(try decoder.double() == Double.pi)
        #expect(try decoder.string() == "snäre.wav")
        #expect(try decoder.bool())
        #expect(try decoder.optional { d throws(CaptureFormatError) in try d.int() } == nil)
        #expect(try decoder.optional { d throws(CaptureFormatError) in try d.int() } == 7)
        #expect(decoder.isAtEnd)
    }

    @Test func decoderRefusesHostileCountsAndLengths() {
        var encoder = CaptureEncoder()
        encoder.append(UInt64(1_000_000))  // a count with nothing behind it
        var decoder = CaptureDecoder(encoder.bytes[...])
        #expect(throws: CaptureFormatError.self) { try decoder.count(maximum: 10_000_000) }
        var overlong = CaptureDecoder([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01][...])
        #expect(throws: CaptureFormatError.self) { try overlong.uint64() }
    }

    @Test func writtenRecordsReadBackInOrderWithTheirFrames() throws {
        let url = temporaryURL("order.bbcap")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try CaptureFileWriter(url: url)
        for index in 0..<10_000 {
            writer.append(CaptureKind(0x1FF), frame: Int64(index / 3)) { $0.append(index) }
        }
        try writer.close()
        let reader = try CaptureFileReader(url: url)
        let records = reader.readAll()
        #expect(reader.damage == nil)
        #expect(records.count == 10_000)
        for (index, record) in records.enumerated() {
            var decoder = record.decoder
            #expect(record.frame == Int64(index / 3))
            #expect(try decoder.int() == index)
        }
    }

    /// Records enough for several blocks (the writer hands each block to its
    /// thread and takes the last one's storage back): every record whole, in
    /// order, and the file made of more than one checked block.
    @Test func recordsOverManyBlocksReadBackWhole() throws {
        let url = temporaryURL("blocks.bbcap")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try CaptureFileWriter(url: url)
        let perBlock = CaptureFormat.targetBlockBytes / 1_000 + 1
        let count = 3 * perBlock + 7
        for index in 0..<count {
            // Frames go back as well as forward (the deltas are signed).
            writer.append(CaptureKind(0x1FF), frame: Int64(index % 2 == 0 ? index : index / 2)) { encoder in
                encoder.append(index)
                encoder.append(bytes: (0..<997).map { UInt8(truncatingIfNeeded: $0 &+ index) })
            }
            if index % perBlock == perBlock - 1 {
                // A block's worth is waiting: the writer's thread takes it;
                // wait for it to reach the file, so the next goes in a block of its own.
                let before = writer.bytesWritten
                while writer.bytesWritten == before { sched_yield() }
            }
        }
        try writer.close()
        let bytes = [UInt8](try Data(contentsOf: url))
        #expect(Int64(bytes.count) == writer.bytesWritten)
        var blocks = 0
        var offset = CaptureFormat.headerBytes
        while offset + CaptureFormat.blockHeaderBytes <= bytes.count {
            let length = bytes[offset..<(offset + 4)].reversed().reduce(0) { $0 << 8 | Int($1) }
            offset += CaptureFormat.blockHeaderBytes + length
            blocks += 1
        }
        #expect(offset == bytes.count)
        #expect(blocks >= 3)
        let reader = try CaptureFileReader(url: url)
        let records = reader.readAll()
        #expect(reader.damage == nil)
        #expect(records.count == count)
        for (index, record) in records.enumerated() {
            var decoder = record.decoder
            #expect(record.frame == Int64(index % 2 == 0 ? index : index / 2))
            #expect(try decoder.int() == index)
            #expect(Array(try decoder.bytes(maximum: 997)) == (0..<997).map { UInt8(truncatingIfNeeded: $0 &+ index) })
            #expect(decoder.isAtEnd)
        }
    }

    @Test func aFileCutShortReadsUpToTheDamageAndSaysWhere() throws {
        let url = temporaryURL("cut.bbcap")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try CaptureFileWriter(url: url)
        for index in 0..<100 { writer.append(CaptureKind(0x1FF), frame: Int64(index)) { $0.append(index) } }
        try writer.close()
        let whole = try Data(contentsOf: url)
        try whole.prefix(whole.count - 5).write(to: url)
        let reader = try CaptureFileReader(url: url)
        #expect(reader.readAll().isEmpty)  // one block, cut: nothing whole in it
        let damage = try #require(reader.damage)
        #expect(damage.contains("byte 12"))
    }

    @Test func aFlippedByteFailsTheBlockCheck() throws {
        let url = temporaryURL("flip.bbcap")
        defer { try? FileManager.default.removeItem(at: url) }
        let writer = try CaptureFileWriter(url: url)
        writer.append(CaptureKind(0x1FF), frame: 0) { $0.append("first") }
        try writer.close()
        var bytes = [UInt8](try Data(contentsOf: url))
        bytes[bytes.count - 2] ^= 0x40
        try Data(bytes).write(to: url)
        let reader = try CaptureFileReader(url: url)
        #expect(reader.next() == nil)
        #expect(reader.damage?.contains("fails its check") == true)
    }

    @Test func aFileThatIsNotACaptureIsRefused() throws {
        let url = temporaryURL("wav.bbcap")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data("RIFF....WAVEfmt ".utf8).write(to: url)
        #expect(throws: BackbeatError.self) { _ = try CaptureFileReader(url: url) }
        do {
            _ = try CaptureFileReader(url: url)
        } catch let error as BackbeatError {
            #expect(error.code == .notACapture)
        }
    }

    @Test func aNewerFormatIsAClearError() throws {
        let url = temporaryURL("new.bbcap")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(CaptureFormat.magic + [9, 0, 0, 0]).write(to: url)
        do {
            _ = try CaptureFileReader(url: url)
            Issue.record("a version-9 capture was read")
        } catch let error as BackbeatError {
            #expect(error.code == .captureVersionUnsupported)
            #expect(error.description.contains("version 9"))
        }
    }
}
