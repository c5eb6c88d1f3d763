#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BackbeatSupport

/// Where a writer's bytes go until they are complete: a hidden temporary file
/// beside the target, renamed into place at the end, removed on failure.
struct OutputFile {
    let url: URL
    let temporaryURL: URL
    let overwrite: Bool

    /// Checks the target's directory and the overwrite rule, and picks the temporary name.
    init(url: URL, overwrite: Bool, operation: String = "open") throws {
        guard url.isFileURL else { throw BackbeatError(.invalidArgument, operation: operation, url: url, reason: "only file URLs can be written") }
        self.url = url
        self.overwrite = overwrite
        let directory = url.deletingLastPathComponent()
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory else {
            throw BackbeatError(.writeFailed, operation: operation, url: url, reason: "directory does not exist")
        }
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            if isDirectory { throw BackbeatError(.notAFile, operation: operation, url: url, reason: "the output path is a directory") }
            if !overwrite { throw BackbeatError(.fileExists, operation: operation, url: url, reason: "use overwrite to replace it") }
        }
        temporaryURL = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).partial")
    }

    /// Moves the finished temporary file into place (atomically replacing the
    /// target when overwriting); on failure the temporary file is removed.
    func commit() throws {
        if !overwrite, FileManager.default.fileExists(atPath: url.path) {
            discard()
            throw BackbeatError(.fileExists, operation: "rename", url: url, reason: "the file appeared while writing")
        }
        if rename(temporaryURL.path, url.path) != 0 {
            let reason = String(cString: strerror(errno))
            discard()
            throw BackbeatError(.writeFailed, operation: "rename", url: url, reason: reason)
        }
    }

    /// Removes the temporary file.
    func discard() {
        try? FileManager.default.removeItem(at: temporaryURL)
    }
}
