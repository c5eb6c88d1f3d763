// What the archive fuzzer runs: arbitrary bytes written as a .zip, opened as
// an archive, and its first entries opened and decoded like the asset fuzzers.
import BackbeatMedia
import Foundation

public func exerciseArchive(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("backbeat-fuzz-archive-\(ProcessInfo.processInfo.processIdentifier).zip")
    guard (try? Data(UnsafeBufferPointer(start: data, count: size)).write(to: path)) != nil else { return 0 }
    defer { try? FileManager.default.removeItem(at: path) }
    guard let archive = try? AudioArchive(url: path) else { return 0 }
    for entry in archive.paths.prefix(4) {
        guard let asset = try? archive.asset(path: entry), let decoder = try? AudioDecoders.open(asset) else {
            continue
        }
        defer { decoder.close() }
        var samples: [Float] = []
        var frames = 0
        // Bounded: a hostile header may claim hours of audio.
        while frames < 500_000, let n = try? decoder.read(frames: 4_096, into: &samples), n > 0 { frames += n }
        if decoder.frameCount > 0 {
            try? decoder.seek(toFrame: decoder.frameCount / 2)
            _ = try? decoder.read(frames: 512, into: &samples)
        }
    }
    return 0
}
