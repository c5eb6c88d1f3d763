/// What a capture keeps of a file that may change while the game runs (a
/// bank, a sound that follows its file): its fingerprint, and its bytes when
/// it is small enough, so a replay hears the version the game had even after
/// the file was edited again.
package struct CapturedFile: Sendable, Equatable {
    /// Files up to this many bytes are kept whole.
    package static let largestKept = 1 << 20

    /// The file's path, size and content hash.
    package var fingerprint: FileFingerprint
    /// Its bytes (nil: larger than ``largestKept``, so a replay reads the file).
    package var bytes: [UInt8]?

    /// A captured file.
    ///
    /// - Parameters:
    ///   - fingerprint: The file's path, size and hash.
    ///   - bytes: Its bytes, or nil when they are not kept.
    package init(fingerprint: FileFingerprint, bytes: [UInt8]?) {
        self.fingerprint = fingerprint
        self.bytes = bytes
    }

    /// Writes it: the fingerprint, then the optional bytes.
    ///
    /// - Parameter encoder: Where to write it.
    package func encode(into encoder: inout CaptureEncoder) {
        fingerprint.encode(into: &encoder)
        encoder.appendOptional(bytes) { $0.append(bytes: $1) }
    }

    /// Reads one, checking that kept bytes match the fingerprint's size.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Throws: ``CaptureFormatError`` when it is cut short, too large or inconsistent.
    package init(from decoder: inout CaptureDecoder) throws(CaptureFormatError) {
        fingerprint = try FileFingerprint(from: &decoder)
        bytes = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
            Array(try d.bytes(maximum: Self.largestKept))
        }
        if let bytes, Int64(bytes.count) != fingerprint.size {
            throw .malformed("a kept file of \(bytes.count) bytes fingerprinted as \(fingerprint.size)")
        }
    }
}
