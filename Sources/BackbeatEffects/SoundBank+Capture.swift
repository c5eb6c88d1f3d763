import BackbeatCapture
import BackbeatEngine
import BackbeatMedia

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a bank's definition came from, as a capture names it.
enum BankCaptureSource: @unchecked Sendable {
    // @unchecked: the byte source is Sendable by its protocol; the URL is a value.
    /// A bank file.
    case file(URL)
    /// JSON bytes, with sounds in a folder.
    case bytes(any AudioByteSource, name: String, directory: URL)
    /// An entry of a zip archive.
    case archive(URL, path: String)
    /// Bytes whose sounds come from where a replay cannot follow.
    case unreplayable(name: String, reason: String)
}

/// What a bank's declaring record says (``CaptureKind/effectsBankDeclared``).
package enum BankCaptureOrigin: Sendable {
    /// A bank file, fingerprinted.
    case file(FileFingerprint)
    /// A bank made from JSON bytes: its name, its text and the folder of its sounds.
    case bytes(name: String, text: [UInt8], directory: String)
    /// A bank in a zip archive: the archive's fingerprint and the bank's path inside it.
    case archive(FileFingerprint, path: String)
    /// A bank a replay cannot make: its name and why.
    case unreplayable(name: String, reason: String)

    /// Reads one.
    ///
    /// - Parameter decoder: The record's decoder.
    package init(from decoder: inout CaptureDecoder) throws(CaptureFormatError) {
        switch try decoder.fixed(UInt8.self) {
        case 0: self = .file(try FileFingerprint(from: &decoder))
        case 1:
            let name = try decoder.string()
            let text = Array(try decoder.bytes(maximum: SoundCaptureOrigin.largestKept))
            self = .bytes(name: name, text: text, directory: try decoder.string())
        case 2: self = .archive(try FileFingerprint(from: &decoder), path: try decoder.string())
        case 3: self = .unreplayable(name: try decoder.string(), reason: try decoder.string())
        case let other: throw .malformed("bank origin \(other)")
        }
    }

    /// Writes it.
    ///
    /// - Parameter encoder: Where to write it.
    func encode(into encoder: inout CaptureEncoder) {
        switch self {
        case .file(let fingerprint):
            encoder.appendFixed(UInt8(0))
            fingerprint.encode(into: &encoder)
        case .bytes(let name, let text, let directory):
            encoder.appendFixed(UInt8(1))
            encoder.append(name)
            encoder.append(bytes: text)
            encoder.append(directory)
        case .archive(let fingerprint, let path):
            encoder.appendFixed(UInt8(2))
            fingerprint.encode(into: &encoder)
            encoder.append(path)
        case .unreplayable(let name, let reason):
            encoder.appendFixed(UInt8(3))
            encoder.append(name)
            encoder.append(reason)
        }
    }
}

extension SoundBank {
    /// What a replay needs to load the bank again (reads its file through to
    /// fingerprint it), and a bank file's text, up to 1 MiB: the file may be
    /// edited while the game runs, and a replay then loads what the game had.
    var captureOrigin: (origin: BankCaptureOrigin, text: [UInt8]?) {
        func fingerprint(_ url: URL) -> FileFingerprint {
            (try? FileFingerprint(of: url)) ?? FileFingerprint(path: url.path, size: 0, hash: 0)
        }
        switch captureSource {
        case .file(let url):
            guard let read = try? FileFingerprint.read(url, keepingAtMost: CapturedFile.largestKept) else {
                return (.file(FileFingerprint(path: url.path, size: 0, hash: 0)), nil)
            }
            return (.file(read.fingerprint), read.bytes)
        case .archive(let url, let path): return (.archive(fingerprint(url), path: path), nil)
        case .unreplayable(let name, let reason): return (.unreplayable(name: name, reason: reason), nil)
        case .bytes(let source, let name, let directory):
            guard let reader = try? ByteSourceReader(source: source, url: url),
                reader.size <= Int64(SoundCaptureOrigin.largestKept),
                let text = try? reader.bytes(at: 0, count: Int(reader.size))
            else {
                return (.unreplayable(name: name, reason: "its definition is over 1 MiB or unreadable"), nil)
            }
            return (.bytes(name: name, text: text, directory: directory.path), nil)
        }
    }

    /// The bank's id in the engine's capture, declaring it the first time
    /// the capture sees it; nil when no capture is on. With the lock held.
    ///
    /// - Parameter engine: Its engine.
    func captureIDLocked(_ engine: AudioEngine) -> UInt32? {
        guard let recorder = engine.captureRecorder else { return nil }
        if captureTag.generation == recorder.generation { return captureTag.id }
        let (origin, text) = captureOrigin
        // Every bus it declares, given or made: a replay finds the ones the
        // capture made again (`makeBus` records itself) instead of making more.
        let buses = state.buses.map(\.name)
        return engine.captureIDLocked(&captureTag, declaring: .effectsBankDeclared) { encoder in
            origin.encode(into: &encoder)
            encoder.append(UInt64(buses.count))
            for name in buses { encoder.append(name) }
            encoder.appendOptional(text) { $0.append(bytes: $1) }
        }
    }
}
