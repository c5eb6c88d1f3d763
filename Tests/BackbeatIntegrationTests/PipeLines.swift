import BackbeatSupport
import Foundation

/// A child process's output read line by line as it comes, on a thread of
/// its own, into a box the test reads from: the device scenes' and the
/// monitor's lines.
enum PipeLines {
    /// Reads `pipe` until the child closes it, appending each whole line to `lines`.
    ///
    /// - Parameters:
    ///   - pipe: The pipe the child writes to.
    ///   - lines: Where each line goes, without its newline.
    static func collect(from pipe: Pipe, into lines: LockedValueBox<[String]>) {
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    lines.withLockedValue { $0.append(line) }
                }
            }
        }
    }
}
