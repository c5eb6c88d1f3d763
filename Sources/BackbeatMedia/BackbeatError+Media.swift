import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension BackbeatError.Code {
    /// Loop points that name no region: negative, empty, or past the end of the sound.
    public static let invalidLoopPoints = Self("invalid loop points")
    /// The file does not exist.
    public static let fileNotFound = Self("file not found")
    /// The path names a directory or another non-regular file.
    public static let notAFile = Self("not a file")
    /// The file is empty.
    public static let emptyFile = Self("empty file")
    /// The file is not valid audio in the format it claims, or its data is damaged.
    public static let corruptFile = Self("corrupt file")
    /// The container is recognised but its codec or encoding is not supported.
    public static let unsupportedCodec = Self("unsupported codec")
    /// The file ends before its headers say it should.
    public static let truncatedFile = Self("truncated file")
    /// An embedded picture (such as a METADATA_BLOCK_PICTURE tag) is malformed.
    public static let corruptArtwork = Self("corrupt artwork")
    /// A file could not be read.
    public static let readFailed = Self("read failed")
    /// The operation was cancelled.
    public static let cancelled = Self("cancelled")
    /// The file is not a zip archive.
    public static let notAnArchive = Self("not an archive")
    /// The zip archive's directory or an entry's data is damaged.
    public static let corruptArchive = Self("corrupt archive")
    /// The archive holds no entry at the path asked for.
    public static let entryNotFound = Self("entry not found")
    /// An archive entry's declared size is not the number of bytes it holds or delivers.
    public static let entrySizeMismatch = Self("entry size mismatch")
    /// The archive entry is encrypted; Backbeat reads only unencrypted entries.
    public static let encryptedEntry = Self("encrypted entry")
    /// A file could not be read.
    public static let unreadableFile = Self("unreadable file")
}

extension BackbeatError {
    /// Checks that `url` names a readable, non-empty regular file, throwing
    /// ``Code/fileNotFound``, ``Code/notAFile`` or ``Code/emptyFile``.
    static func checkReadableFile(_ url: URL, operation: String) throws {
        guard url.isFileURL else {
            throw BackbeatError(
                .invalidArgument, operation: operation, url: url, reason: "only file URLs can be opened")
        }
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        } catch {
            throw BackbeatError(.fileNotFound, operation: operation, url: url, reason: "no such file")
        }
        let type = attributes[.type] as? FileAttributeType
        guard type == .typeRegular else {
            let what = type == .typeDirectory ? "a directory" : "not a regular file"
            throw BackbeatError(.notAFile, operation: operation, url: url, reason: "it is \(what)")
        }
        let size = FileManager.fileSize(attributes)
        guard size > 0 else {
            throw BackbeatError(.emptyFile, operation: operation, url: url, reason: "the file has zero bytes")
        }
        guard FileManager.default.isReadableFile(atPath: url.path) else {
            throw BackbeatError(.readFailed, operation: operation, url: url, reason: "permission denied")
        }
    }
}
