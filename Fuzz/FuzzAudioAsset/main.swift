// libFuzzer entry: arbitrary bytes loaded through the public AudioAsset API.
// The first byte chooses the file's extension (.ogg, .wav, .flac, .mp3); the
// rest is the file. Every property is loaded: duration, format, rate,
// channels, frames, codec, container, tags.
import Backbeat
import Foundation
import FuzzDriver
import FuzzSupport

enum AudioAssetFuzzer {
    static let folder = makeFuzzFolder("asset")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAudioAsset(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, let folder = AudioAssetFuzzer.folder,
        let url = writeFuzzedFile(UnsafeBufferPointer(start: data, count: size), in: folder, name: "asset")
    else { return 0 }
    defer { try? FileManager.default.removeItem(at: url) }
    waitFor {
        let asset = AudioAsset(url: url)
        _ = try? await asset.load(.duration, .format, .tags)
        _ = try? await asset.load(.sampleRate, .channelCount, .frameCount)
        _ = try? await asset.load(.codec, .containerFormat)
        // A second asset on the same file: a fresh open, not the cache.
        _ = try? await AudioAsset(url: url).load(.tags)
    }
    return 0
}

runLibFuzzer { data, size in fuzzAudioAsset(data, size) }
