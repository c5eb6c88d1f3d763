import BackbeatCapture
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Replayer {
    /// The file a record names (a sound, a bank, a song), checked against the
    /// fingerprint the capture kept: a missing file is an error naming it and
    /// its path in the capture; a file whose content changed since is one
    /// warning (once per path), and the replay goes on with the new content.
    ///
    /// - Parameters:
    ///   - fingerprint: What the capture kept of the file.
    ///   - name: What the game called it (a sound's name), for the messages.
    ///   - record: The record that names it, for the error's time.
    /// - Returns: The file's URL.
    /// - Throws: ``BackbeatError`` with ``BackbeatError/Code/fileNotFound`` when
    ///   the file is not there, ``BackbeatError/Code/readFailed`` when it cannot be read.
    package func capturedFile(
        _ fingerprint: FileFingerprint, naming name: String, in record: CaptureRecord
    ) throws -> URL {
        let url = URL(fileURLWithPath: fingerprint.path)
        if let checked = checkedFiles[fingerprint.path], checked == fingerprint { return url }
        let now: FileFingerprint
        do {
            now = try FileFingerprint(of: url)
        } catch let error as BackbeatError {
            let at = ReplaySummary.format(seconds: seconds(of: record.frame))
            throw BackbeatError(
                error.code, operation: "replay",
                reason: "\"\(name)\" at \(fingerprint.path) in the capture, loaded at \(at) s: "
                    + (error.reason ?? "\(error.code)"))
        }
        checkedFiles[fingerprint.path] = fingerprint
        if now.size != fingerprint.size || now.hash != fingerprint.hash {
            warn("\"\(name)\" (\(fingerprint.path)) changed since the capture; replaying its new content")
        }
        return url
    }
}
