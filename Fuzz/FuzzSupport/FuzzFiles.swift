// Helpers the fuzzers share: fuzzed bytes as files, and waiting for async API.
import Dispatch
import Foundation

/// The file types a fuzzer's first byte chooses between.
package let fuzzedFileExtensions = ["ogg", "wav", "flac", "mp3"]

/// A fresh, empty folder under the temporary directory; the caller removes it.
package func makeFuzzFolder(_ name: String) -> URL? {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("backbeat-fuzz-\(name)-\(ProcessInfo.processInfo.processIdentifier)", isDirectory: true)
    try? FileManager.default.removeItem(at: url)
    return (try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)) != nil ? url : nil
}

/// Writes `bytes[1...]` to `folder/name.EXT`, EXT chosen by `bytes[0]` from
/// `extensions`; nil for empty input or a failed write.
package func writeFuzzedFile<Bytes: Collection<UInt8>>(
    _ bytes: Bytes, in folder: URL, name: String, extensions: [String] = fuzzedFileExtensions
) -> URL? {
    guard let first = bytes.first else { return nil }
    let ext = extensions[Int(first) % extensions.count]
    let url = folder.appendingPathComponent("\(name).\(ext)")
    return (try? Data(bytes.dropFirst()).write(to: url)) != nil ? url : nil
}

/// Runs async work to completion from a synchronous fuzzer callback.
package func waitFor<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
    let box = WaitBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await work()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// `waitFor`'s result: written once before the semaphore is signalled, read after.
private final class WaitBox<T>: @unchecked Sendable {
    var value: T?
}
