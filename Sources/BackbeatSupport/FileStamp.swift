#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What identifies a file's content without reading it: the file it is
/// (device and inode: a file renamed over it is another), its size and its
/// modification time.
package struct FileStamp: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var modified: Int64

    /// The stamp of the file at `path` now, following links; nil when
    /// it cannot be read (gone, say).
    ///
    /// - Parameter path: A file's path.
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ Int64(info.st_mtim.tv_nsec)
    }
}
