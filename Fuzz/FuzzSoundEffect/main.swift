// libFuzzer entry: arbitrary bytes decoded as a SoundEffect on an offline
// engine, played once and rendered. The first byte chooses the file's
// extension (.ogg, .wav, .flac, .mp3) and, in its high bits, the playback
// rate and pan; the rest is the file.
import Backbeat
import Dispatch
import Foundation
import FuzzDriver
import FuzzSupport

enum SoundEffectFuzzer {
    static let folder = makeFuzzFolder("effect")
    static let rates: [Float] = [1, 0.5, 2, 1.37]
    static let pans: [Float] = [0, -1, 1, 0.3]
}

/// A preload's result: written before `done` is signalled, read after.
final class PreloadOutcome: @unchecked Sendable {
    let done = DispatchSemaphore(value: 0)
    var succeeded = false
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSoundEffect(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0, let folder = SoundEffectFuzzer.folder,
        let url = writeFuzzedFile(UnsafeBufferPointer(start: data, count: size), in: folder, name: "effect")
    else { return 0 }
    defer { try? FileManager.default.removeItem(at: url) }
    guard let engine = try? AudioEngine(output: .offline(sampleRate: 48_000, channels: 2)) else { return 0 }
    defer { engine.shutdown() }
    let effect = SoundEffect(contentsOf: url, engine: engine)
    // The completion form, not async preload(): no task is left in flight on
    // the global executor when the input ends.
    let loaded = PreloadOutcome()
    effect.preload { result in
        if case .success = result { loaded.succeeded = true }
        loaded.done.signal()
    }
    loaded.done.wait()
    guard loaded.succeeded else { return 0 }
    _ = effect.duration
    effect.play(
        pan: SoundEffectFuzzer.pans[Int(data[0] >> 4) % 4], rate: SoundEffectFuzzer.rates[Int(data[0] >> 6)])
    _ = try? engine.render(frames: 4_096)
    return 0
}

runLibFuzzer { data, size in fuzzSoundEffect(data, size) }
