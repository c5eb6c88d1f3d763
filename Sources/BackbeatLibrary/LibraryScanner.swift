import BackbeatSupport
import Foundation
import GRDB
import Synchronization

/// Walks the library's roots and brings the index up to date in one
/// transaction: new and changed files are read (in parallel), unchanged ones
/// (same size and modification time) are left alone, missing ones removed.
/// Files are only ever read.
struct LibraryScanner {
    let roots: [String]
    let source: any MediaMetadataSource

    static let playlistExtensions: Set<String> = ["m3u", "m3u8", "pls", "xspf"]
    static let coverNames = ["cover.jpg", "cover.jpeg", "cover.png", "folder.jpg", "folder.jpeg", "folder.png"]

    struct FoundFile: Sendable {
        let path: String
        let size: Int64
        let mtime: Int64
        let cover: Cover?
    }

    struct Cover: Sendable {
        let path: String
        let size: MediaItemArtwork.Size
    }

    /// One file's row, ready to insert.
    struct Extracted: Sendable {
        let file: FoundFile
        let id: UInt64
        let metadata: ScannedMetadata
        let embeddedArtworkSize: MediaItemArtwork.Size?
    }

    // MARK: Walking

    /// The files under the roots, and the folders that could not be reached
    /// (a root that is missing, such as an unmounted drive, or a folder that
    /// cannot be read): what was indexed under those is kept, not removed.
    func walk() -> (audio: [FoundFile], playlists: [FoundFile], skipped: [ScanReport.Skipped], unreachable: [String]) {
        var audio: [FoundFile] = []
        var playlists: [FoundFile] = []
        var skipped: [ScanReport.Skipped] = []
        var unreachable: [String] = []
        var visited = Set<[UInt64]>()
        var pending: [String] = []
        for root in roots {
            var st = stat()
            guard stat(root, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
                skipped.append(
                    .init(
                        url: URL(fileURLWithPath: root),
                        reason: "root is not a readable directory; its items are kept, marked unavailable"))
                unreachable.append(root)
                continue
            }
            if visited.insert([UInt64(st.st_dev), UInt64(st.st_ino)]).inserted { pending.append(root) }
        }
        while let directory = pending.popLast() {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
                skipped.append(
                    .init(
                        url: URL(fileURLWithPath: directory),
                        reason: "directory cannot be read; its items are kept, marked unavailable"))
                unreachable.append(directory)
                continue
            }
            var cover: Cover?
            var files: [(String, stat)] = []
            for name in names.sorted() where !name.hasPrefix(".") {
                let path = directory + "/" + name
                var st = stat()
                guard lstat(path, &st) == 0 else { continue }
                let isLink = (st.st_mode & S_IFMT) == S_IFLNK
                if isLink, stat(path, &st) != 0 {
                    skipped.append(.init(url: URL(fileURLWithPath: path), reason: "broken symbolic link"))
                    continue
                }
                switch st.st_mode & S_IFMT {
                case S_IFDIR:
                    if visited.insert([UInt64(st.st_dev), UInt64(st.st_ino)]).inserted {
                        pending.append(path)
                    } else if isLink {
                        skipped.append(
                            .init(
                                url: URL(fileURLWithPath: path),
                                reason: "symbolic link loop (directory already scanned)"))
                    }
                case S_IFREG:
                    files.append((path, st))
                    if cover == nil, Self.coverNames.contains(name.lowercased()),
                        let size = ImageCodec.size(ofFile: path), ImageCodec.isDecodable(size)
                    {
                        cover = Cover(path: path, size: size)
                    }
                default:
                    break
                }
            }
            for (path, st) in files {
                let ext = (path as NSString).pathExtension.lowercased()
                // Nanoseconds pass Int64 after 2262 and ext4 dates files up to
                // 2446: the arithmetic wraps. The value is only ever compared
                // for equality, and over the whole range a file system can
                // store it stays one-to-one (it spans less than 2^64).
                let mtime = Int64(st.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(st.st_mtim.tv_nsec)
                let found = FoundFile(path: path, size: Int64(st.st_size), mtime: mtime, cover: cover)
                if source.handles(pathExtension: ext) {
                    audio.append(found)
                } else if Self.playlistExtensions.contains(ext) {
                    playlists.append(found)
                }
            }
        }
        audio.sort { $0.path < $1.path }
        playlists.sort { $0.path < $1.path }
        return (audio, playlists, skipped, unreachable)
    }

    // MARK: Reading files

    func extract(_ file: FoundFile) -> Result<Extracted, BackbeatError> {
        let url = URL(fileURLWithPath: file.path)
        do {
            let fd = open(file.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw BackbeatError(
                    .unreadableFile, operation: "open", url: url, reason: String(cString: strerror(errno)))
            }
            let id: UInt64
            do {
                defer { close(fd) }
                id = try ContentIdentity.persistentID(descriptor: fd, length: file.size, url: url)
            }
            var metadata = try source.metadata(for: url)
            var pictureSize: MediaItemArtwork.Size?
            if let picture = metadata.embeddedPicture {
                pictureSize = ImageCodec.size(of: picture)
                if let size = pictureSize, !ImageCodec.isDecodable(size) {
                    metadata.warnings.append("embedded picture of \(size) is over 4096×4096 pixels; ignored")
                    pictureSize = nil
                } else if pictureSize == nil {
                    metadata.warnings.append("embedded picture is not a readable JPEG or PNG; ignored")
                }
                metadata.embeddedPicture = nil
            }
            return .success(Extracted(file: file, id: id, metadata: metadata, embeddedArtworkSize: pictureSize))
        } catch let error as BackbeatError {
            return .failure(error)
        } catch {
            return .failure(BackbeatError(.unreadableFile, operation: "read", url: url, reason: "\(error)"))
        }
    }

    /// Reads `files` on every core; results come back in the same order.
    func extractAll(_ files: [FoundFile]) -> [Result<Extracted, BackbeatError>] {
        guard !files.isEmpty else { return [] }
        let next = Atomic<Int>(0)
        let results = LockedValueBox<[Result<Extracted, BackbeatError>?]>(Array(repeating: nil, count: files.count))
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, files.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < files.count else { return }
                let result = extract(files[index])
                results.withLockedValue { $0[index] = result }
            }
        }
        return results.withLockedValue { $0.map { $0! } }
    }
}
