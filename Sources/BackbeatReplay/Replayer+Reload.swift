import BackbeatCapture
import BackbeatEffects
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Replayer {
    /// Applies a record of ``CaptureKind/reloadRange``: a bank or sound that
    /// read its changed file again, applied where the original took it.
    ///
    /// - Parameter record: The record.
    /// - Throws: When its payload does not decode or the reload does not
    ///   apply here; a file the capture did not keep that is missing is
    ///   ``BackbeatError/Code/fileNotFound``, naming it.
    func applyReload(_ record: CaptureRecord) throws {
        var decoder = record.decoder
        do {
            switch record.kind {
            case .reloadBank:
                let bank = try object(try decoder.uint32(), as: SoundBank.self, in: record)
                let afterStep = try decoder.bool()
                let file = try CapturedFile(from: &decoder)
                let text = try content(of: file, what: "bank")
                do {
                    try bank.replayReload(text: text, path: file.fingerprint.path, afterStep: afterStep)
                    note("bank \(bank.url.lastPathComponent) reloaded")
                } catch let error as BackbeatError where error.code == .invalidSoundBank {
                    warnNotReloaded("bank \(file.fingerprint.path)", record, error)
                }
            case .reloadSound:
                let sound: SoundEffect
                switch try decoder.fixed(UInt8.self) {
                case 0: sound = try object(try decoder.uint32(), as: SoundEffect.self, in: record)
                case 1:
                    let bank = try object(try decoder.uint32(), as: SoundBank.self, in: record)
                    let key = try decoder.string()
                    guard let found = bank.sound(forKey: key) else {
                        throw CaptureFormatError.malformed("bank \(bank.url.path) has no sound \(key)")
                    }
                    sound = found
                case let other: throw CaptureFormatError.malformed("reloaded sound \(other)")
                }
                let afterStep = try decoder.bool()
                let file = try CapturedFile(from: &decoder)
                let asset = try soundAsset(
                    file.fingerprint, kept: file.bytes, loopPoints: sound.explicitLoopPoints,
                    what: "sound \"\(sound.name)\"")
                do {
                    try sound.replayReload(asset, afterStep: afterStep)
                    note("sound \(sound.name) reloaded")
                } catch let error as BackbeatError where error.code != .engineShutDown {
                    warnNotReloaded("sound \"\(sound.name)\"", record, error)
                }
            default: skipUnknown(record)
            }
        } catch let error as CaptureFormatError {
            throw damaged(record, error)
        }
    }

    /// A reload the original took that does not load here (its file, read
    /// now, changed since): one warning line; the old definition stays.
    private func warnNotReloaded(_ what: String, _ record: CaptureRecord, _ error: BackbeatError) {
        warn(
            "\(what), reloaded at \(ReplaySummary.format(seconds: seconds(of: record.frame))) s, does not load "
                + "here (\(error.reason ?? error.code.description)): the replay keeps the old one")
    }

    /// A reloaded file's content: the bytes the capture kept, or the file
    /// read now (one warning line when it changed since).
    ///
    /// - Parameters:
    ///   - file: What the capture recorded.
    ///   - what: How to name it in a message.
    private func content(of file: CapturedFile, what: String) throws -> Data {
        if let bytes = file.bytes { return Data(bytes) }
        try checkFile(file.fingerprint, what: what)
        // Read as a fingerprint reads: a FIFO or device named here is refused, not waited on.
        let url = URL(fileURLWithPath: file.fingerprint.path)
        guard let bytes = try FileFingerprint.read(url, keepingAtMost: Self.largestBank).bytes else {
            throw BackbeatError(
                .invalidArgument, operation: "replay", url: url,
                reason: "\(what) at \(url.path) is over \(Self.largestBank) bytes")
        }
        return Data(bytes)
    }

    /// The largest bank file a replay reads (a bank is 4 MiB at most).
    private static let largestBank = 4 << 20
}
