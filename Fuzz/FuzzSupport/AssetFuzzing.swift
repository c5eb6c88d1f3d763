// What the asset fuzzers share: arbitrary bytes written to a file with the
// given extension and opened as an asset: probe, decoder, every frame, tags, a seek.
import BackbeatMedia
import Foundation

public func exerciseAsset(_ data: UnsafePointer<UInt8>, _ size: Int, pathExtension: String) -> CInt {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("backbeat-fuzz-\(ProcessInfo.processInfo.processIdentifier).\(pathExtension)")
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
