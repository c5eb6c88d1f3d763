import BackbeatSupport
import CZip

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An open libzip archive (read only) and the lock that serialises every call on it.
final class ZipHandle: @unchecked Sendable {
    // @unchecked: libzip's archive is used only under `lock`.
    let handle: OpaquePointer
    let lock = Lock()

    init(url: URL) throws {
        var code: Int32 = 0
        guard let handle = zip_open(url.path, ZIP_RDONLY, &code) else {
            var error = zip_error_t()
            zip_error_init_with_code(&error, code)
            defer { zip_error_fini(&error) }
            let reason = String(cString: zip_error_strerror(&error))
            switch code {
            case ZIP_ER_NOZIP:
                throw BackbeatError(.notAnArchive, operation: "zip_open", url: url, reason: "not a zip archive")
            case ZIP_ER_OPEN, ZIP_ER_READ, ZIP_ER_SEEK, ZIP_ER_MEMORY:
                throw BackbeatError(.readFailed, operation: "zip_open", url: url, reason: reason)
            default:
                throw BackbeatError(.corruptArchive, operation: "zip_open", url: url, reason: reason)
            }
        }
        self.handle = handle
    }

    deinit { zip_discard(handle) }

    var count: Int { lock.withLock { Int(max(0, zip_get_num_entries(handle, 0))) } }

    func names() -> [String] {
        lock.withLock {
            let count = max(0, zip_get_num_entries(handle, 0))
            return (0..<count).compactMap { i in zip_get_name(handle, UInt64(i), 0).map { String(cString: $0) } }
        }
    }

    struct Stat {
        let index: Int
        let size: Int64
        let compressedSize: Int64
        let method: Int32
        let encryption: UInt16
    }

    /// The directory's record of the entry at `path`.
    func stat(path: String, entryURL: URL) throws -> Stat {
        try lock.withLock {
            let index = zip_name_locate(handle, path, 0)
            guard index >= 0 else {
                throw BackbeatError(
                    .entryNotFound, operation: "open entry", url: entryURL,
                    reason: "no entry \"\(path)\" in the archive")
            }
            var st = zip_stat_t()
            zip_stat_init(&st)
            guard zip_stat_index(handle, UInt64(index), 0, &st) == 0 else {
                throw error(operation: "zip_stat_index", url: entryURL)
            }
            let needed = UInt64(ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD)
            guard st.valid & needed == needed, st.size <= UInt64(ByteSourceReader.maxSize),
                st.comp_size <= UInt64(ByteSourceReader.maxSize)
            else {
                throw BackbeatError(
                    .corruptArchive, operation: "zip_stat_index", url: entryURL,
                    reason: "the entry's sizes are missing or impossible")
            }
            let encryption = st.valid & UInt64(ZIP_STAT_ENCRYPTION_METHOD) != 0 ? st.encryption_method : 0
            return Stat(
                index: Int(index), size: Int64(st.size), compressedSize: Int64(st.comp_size),
                method: Int32(st.comp_method), encryption: encryption)
        }
    }

    /// The archive's last error (call under the lock).
    func error(operation: String, url: URL) -> BackbeatError {
        let code = zip_error_code_zip(zip_get_error(handle))
        let reason = String(cString: zip_strerror(handle))
        switch code {
        case ZIP_ER_ENCRNOTSUPP, ZIP_ER_NOPASSWD, ZIP_ER_WRONGPASSWD:
            return BackbeatError(.encryptedEntry, operation: operation, url: url, reason: reason)
        case ZIP_ER_COMPNOTSUPP:
            return BackbeatError(.unsupportedCodec, operation: operation, url: url, reason: reason)
        default:
            return BackbeatError(.corruptArchive, operation: operation, url: url, reason: reason)
        }
    }
}
