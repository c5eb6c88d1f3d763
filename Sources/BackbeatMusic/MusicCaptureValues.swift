import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How music assets and items are written into capture records and read
/// back. A file is its fingerprint (path, size, content hash), not its
/// audio; bytes from memory or a game's source are written whole up to
/// ``largestInlineBytes``, and above that only fingerprinted (a replay then
/// stops with a line naming them); an archive entry is the archive's
/// fingerprint and the entry's path.
package enum MusicCaptureValues {
    /// The most bytes of an in-memory song a capture holds whole.
    package static let largestInlineBytes = 1 << 20

    /// Writes `asset`.
    ///
    /// - Parameters:
    ///   - asset: The asset.
    ///   - encoder: The record being written.
    package static func encode(_ asset: AudioAsset, into encoder: inout CaptureEncoder) {
        if let entry = asset.archiveEntry {
            encoder.append(UInt64(2))
            encodeFile(entry.archive, into: &encoder)
            encoder.append(entry.path)
        } else if asset.readsURL {
            encoder.append(UInt64(0))
            encodeFile(asset.url, into: &encoder)
        } else {
            let bytes = try? asset.byteSourceReader().readAll(atMost: largestInlineBytes)
            if let bytes {
                encoder.append(UInt64(1))
                encoder.append(asset.url.absoluteString)
                encoder.append(bytes: bytes)
            } else {
                // Too large (or unreadable): its size and hash, so a replay can say what is missing.
                encoder.append(UInt64(3))
                encoder.append(asset.url.absoluteString)
            }
        }
        encoder.appendOptional(asset.explicitLoopPoints) { encoder, points in
            encoder.append(points.start)
            encoder.append(points.end)
        }
        switch asset.looping {
        case .once: encoder.append(UInt64(0))
        case .times(let count):
            encoder.append(UInt64(1))
            encoder.append(count)
        case .forever: encoder.append(UInt64(2))
        }
    }

    private static func encodeFile(_ url: URL, into encoder: inout CaptureEncoder) {
        let fingerprint = MusicAssetFingerprints.fingerprint(of: url)
        encoder.append(fingerprint != nil)
        (fingerprint ?? FileFingerprint(path: url.path, size: 0, hash: 0)).encode(into: &encoder)
    }

    /// An asset as a capture holds it, to make again with ``resolve(warn:)``.
    package struct CapturedAsset {
        enum Source {
            case file(FileFingerprint, existed: Bool)
            case bytes(url: String, [UInt8])
            case archive(FileFingerprint, existed: Bool, path: String)
            case notCaptured(url: String)
        }
        let source: Source
        let loopPoints: LoopPoints?
        let looping: Looping

        /// The asset, made again: a file that is missing now but was there
        /// when captured throws one line naming it and its path; a file whose
        /// content changed since is a warning, and the replay goes on with it.
        ///
        /// - Parameter warn: Takes a one-line warning.
        /// - Returns: The asset.
        /// - Throws: ``BackbeatError/Code/fileNotFound`` for a missing file
        ///   or bytes the capture does not hold.
        package func resolve(warn: (String) -> Void) throws -> AudioAsset {
            switch source {
            case .file(let fingerprint, let existed):
                let url = URL(fileURLWithPath: fingerprint.path)
                if existed { try check(fingerprint, warn: warn) }
                return AudioAsset(url: url, loopPoints: loopPoints, looping: looping)
            case .bytes(let name, let bytes):
                let url = URL(string: name) ?? URL(fileURLWithPath: name)
                return AudioAsset(source: Data(bytes), url: url, loopPoints: loopPoints, looping: looping)
            case .archive(let fingerprint, let existed, let path):
                if existed { try check(fingerprint, warn: warn) }
                let archive = try AudioArchive(url: URL(fileURLWithPath: fingerprint.path))
                return try archive.asset(path: path, loopPoints: loopPoints, looping: looping)
            case .notCaptured(let name):
                throw BackbeatError(
                    .fileNotFound, operation: "replay",
                    reason: "music \(name) was played from memory (over 1 MiB), so the capture does not hold it")
            }
        }

        private func check(_ fingerprint: FileFingerprint, warn: (String) -> Void) throws {
            let url = URL(fileURLWithPath: fingerprint.path)
            let name = url.lastPathComponent
            guard let now = try? FileFingerprint(of: url) else {
                throw BackbeatError(
                    .fileNotFound, operation: "replay", url: url,
                    reason: "music file \(name) is missing (the capture played it from \(fingerprint.path))")
            }
            if now.size != fingerprint.size || now.hash != fingerprint.hash {
                warn("music file \(name) changed since the capture (\(fingerprint.path)); replaying the new content")
            }
        }
    }

    /// Reads an asset written by ``encode(_:into:)``.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Returns: The asset as captured.
    /// - Throws: ``CaptureFormatError`` for a value no writer writes.
    package static func asset(from decoder: inout CaptureDecoder) throws(CaptureFormatError) -> CapturedAsset {
        let code = try decoder.uint64()
        let source: CapturedAsset.Source
        switch code {
        case 0:
            let existed = try decoder.bool()
            source = .file(try FileFingerprint(from: &decoder), existed: existed)
        case 1:
            let url = try decoder.string()
            source = .bytes(url: url, Array(try decoder.bytes(maximum: largestInlineBytes)))
        case 2:
            let existed = try decoder.bool()
            let archive = try FileFingerprint(from: &decoder)
            source = .archive(archive, existed: existed, path: try decoder.string())
        case 3: source = .notCaptured(url: try decoder.string())
        default: throw .malformed("asset source \(code)")
        }
        let points = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) -> LoopPoints in
            let start = try d.int64()
            let end = try d.int64()
            guard let points = try? LoopPoints(start: start, end: end) else {
                throw .malformed("loop points \(start)..<\(end)")
            }
            return points
        }
        let looping: Looping
        switch try decoder.uint64() {
        case 0: looping = .once
        case 1: looping = .times(try decoder.int(in: 0...Int(Int32.max)))
        case 2: looping = .forever
        case let other: throw .malformed("looping \(other)")
        }
        return CapturedAsset(source: source, loopPoints: points, looping: looping)
    }
}

extension ByteSourceReader {
    /// Every byte, when there are at most `limit`; nil otherwise.
    fileprivate func readAll(atMost limit: Int) throws -> [UInt8]? {
        guard size <= Int64(limit) else { return nil }
        return try bytes(at: 0, count: Int(size))
    }
}
