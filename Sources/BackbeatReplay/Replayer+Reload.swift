import BackbeatCapture
import BackbeatEffects
import BackbeatMedia

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
                try bank.replayReload(text: text, path: file.fingerprint.path, afterStep: afterStep)
                note("bank \(bank.url.lastPathComponent) reloaded")
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
                let url = URL(fileURLWithPath: file.fingerprint.path)
                let asset: AudioAsset
                if let bytes = file.bytes {
                    asset = AudioAsset(source: Data(bytes), url: url, loopPoints: sound.explicitLoopPoints)
                } else {
                    try checkFile(file.fingerprint, what: "sound \"\(sound.name)\"")
                    asset = AudioAsset(url: url, loopPoints: sound.explicitLoopPoints)
                }
                try sound.replayReload(asset, afterStep: afterStep)
                note("sound \(sound.name) reloaded")
            default: skipUnknown(record)
            }
        } catch let error as CaptureFormatError {
            throw damaged(record, error)
        }
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
        return try Data(contentsOf: URL(fileURLWithPath: file.fingerprint.path))
    }
}
