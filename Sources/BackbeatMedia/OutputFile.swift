import BackbeatSupport

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

/// Where a writer's bytes go until they are complete: a hidden temporary file
/// beside the target, renamed into place at the end, removed on failure.
struct OutputFile {
    let url: URL
    let temporaryURL: URL
    let overwrite: Bool

    /// Checks the target's directory and the overwrite rule, and picks the temporary name.
    init(url: URL, overwrite: Bool, operation: String = "open") throws {
        guard url.isFileURL else {
            throw BackbeatError(
                .invalidArgument, operation: operation, url: url, reason: "only file URLs can be written")
        }
        self.url = url
        self.overwrite = overwrite
        let directory = url.deletingLastPathComponent()
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory else {
            throw BackbeatError(.writeFailed, operation: operation, url: url, reason: "directory does not exist")
        }
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            if isDirectory {
                throw BackbeatError(.notAFile, operation: operation, url: url, reason: "the output path is a directory")
            }
            if !overwrite {
                throw BackbeatError(.fileExists, operation: operation, url: url, reason: "use overwrite to replace it")
            }
        }
        temporaryURL = directory.appendingPathComponent(
            ".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).partial")
    }

    /// Publishes the finished temporary file under the target's name; on
    /// failure the temporary file is removed.
    ///
    /// The file's bytes reach the disk (fsync) before the name is published, and
    /// the directory is synchronised after, so a crash or power loss leaves
    /// either the old file or the complete new one, never a short one. Without
    /// `overwrite` the name is taken atomically with `link(2)`, which fails if
    /// the target exists, so a file that appears while writing is never
    /// replaced; only on a file system without hard links does it fall back to
    /// checking before the rename.
    func commit() throws {
        do {
            try Self.synchronize(temporaryURL)
            if overwrite {
                try publishReplacing()
            } else {
                try publishWithoutReplacing()
            }
        } catch {
            discard()
            throw error
        }
        // The rename is durable once the directory's entry is on disk. The
        // file is already published: a directory that cannot be synchronised
        // (some file systems refuse) is not a failed write.
        try? Self.synchronize(url.deletingLastPathComponent())
    }

    private func publishReplacing() throws {
        guard rename(temporaryURL.path, url.path) == 0 else {
            throw BackbeatError(.writeFailed, operation: "rename", url: url, reason: String(cString: strerror(errno)))
        }
    }

    private func publishWithoutReplacing() throws {
        if link(temporaryURL.path, url.path) == 0 {
            unlink(temporaryURL.path)
            return
        }
        let linkError = errno
        switch linkError {
        case EEXIST:
            throw BackbeatError(.fileExists, operation: "publish", url: url, reason: "the file appeared while writing")
        case EPERM, EOPNOTSUPP, ENOSYS, EMLINK, EXDEV:
            // No hard links here (FAT, some network and FUSE file systems).
            if FileManager.default.fileExists(atPath: url.path) {
                throw BackbeatError(
                    .fileExists, operation: "publish", url: url, reason: "the file appeared while writing")
            }
            try publishReplacing()
        default:
            throw BackbeatError(.writeFailed, operation: "link", url: url, reason: String(cString: strerror(linkError)))
        }
    }

    /// fsync of a file or a directory, by path.
    private static func synchronize(_ url: URL) throws {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw BackbeatError(
                .writeFailed, operation: "open to fsync", url: url, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw BackbeatError(.writeFailed, operation: "fsync", url: url, reason: String(cString: strerror(errno)))
        }
    }

    /// Removes the temporary file.
    func discard() {
        try? FileManager.default.removeItem(at: temporaryURL)
    }
}
