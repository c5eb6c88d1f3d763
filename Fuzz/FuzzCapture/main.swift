// libFuzzer entry: bytes read as a capture file, then replayed without
// rendering, so every record kind reaches its module's decoder and the call
// it replays on an offline engine. The first byte chooses how the rest
// becomes a file: as it is (the header and block checks), or wrapped in a
// valid header and CRC-checked blocks (the records, their frames and their
// payloads, which the fuzzer could not reach through a CRC by mutation).
import BackbeatCapture
import BackbeatReplay
import CLibFuzzer
import Foundation

enum CaptureFuzzer {
    static let file: URL = FileManager.default.temporaryDirectory
        .appendingPathComponent("backbeat-fuzz-capture-\(ProcessInfo.processInfo.processIdentifier).bbcap")

    /// The capture file for `bytes`: raw, or the rest wrapped as one or more valid blocks.
    static func fileBytes(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard let mode = bytes.first else { return [] }
        let rest = bytes.dropFirst()
        if mode & 1 == 0 { return Array(rest) }
        var file = CaptureFormat.magic
        file += [UInt8(CaptureFormat.version & 0xFF), UInt8(CaptureFormat.version >> 8), 0, 0]
        // Bits 1-3 split the payload into that many blocks plus one, so
        // records that span blocks are reached too.
        let blocks = Int((mode >> 1) & 0x7) + 1
        let size = max(1, (rest.count + blocks - 1) / blocks)
        var start = rest.startIndex
        while start < rest.endIndex {
            let end = min(rest.endIndex, start + size)
            let chunk = Array(rest[start..<end])
            withUnsafeBytes(of: UInt32(chunk.count).littleEndian) { file.append(contentsOf: $0) }
            withUnsafeBytes(of: CRC32.checksum(chunk).littleEndian) { file.append(contentsOf: $0) }
            file += chunk
            start = end
        }
        return file
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCapture(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = CaptureFuzzer.fileBytes(UnsafeBufferPointer(start: data, count: size))
    guard (try? Data(bytes).write(to: CaptureFuzzer.file)) != nil else { return 0 }
    // The reader alone, to its end or its damage.
    if let reader = try? CaptureFileReader(url: CaptureFuzzer.file) {
        for record in reader.readAll() { _ = record.decoder.remaining }
    }
    // Every record through the replay's decoders, without rendering audio.
    if let replayer = try? Replayer(url: CaptureFuzzer.file, options: .init(rendersAudio: false)) {
        _ = try? replayer.run(writingTo: nil)
    }
    return 0
}

// Whichever main the link keeps (SwiftPM's renamed entry point or
// libFuzzer's), the driver runs the function above.
var argc = CommandLine.argc
var argv = Optional(CommandLine.unsafeArgv)
exit(
    LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        fuzzCapture(data, size)
    })
