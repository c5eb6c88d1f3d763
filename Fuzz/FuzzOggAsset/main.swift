// libFuzzer entry: arbitrary bytes written to a .ogg file and opened as an
// asset: probe, decoder, every frame, tags, a seek.
@testable import Backbeat
import Foundation
import CLibFuzzer

private let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("backbeat-fuzz-\(ProcessInfo.processInfo.processIdentifier).ogg")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOggAsset(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    guard (try? bytes.write(to: path)) != nil else { return 0 }
    defer { try? FileManager.default.removeItem(at: path) }
    guard let decoder = try? AudioDecoders.open(path) else { return 0 }
    defer { decoder.close() }
    _ = decoder.readTags()
    var samples: [Float] = []
    var frames = 0
    // Bounded: a hostile header may claim hours of audio.
    while frames < 2_000_000, let n = try? decoder.read(frames: 4_096, into: &samples), n > 0 { frames += n }
    if decoder.frameCount > 0 {
        try? decoder.seek(toFrame: decoder.frameCount / 2)
        var shorts: [Int16] = []
        _ = try? decoder.read(frames: 512, into: &shorts)
    }
    return 0
}

// Whichever main the link keeps (SwiftPM's renamed entry point or
// libFuzzer's), the driver runs the function above.
var argc = CommandLine.argc
var argv = Optional(CommandLine.unsafeArgv)
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    guard let data else { return 0 }
    return fuzzOggAsset(data, size)
})
