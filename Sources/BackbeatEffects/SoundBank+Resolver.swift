import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SoundBank {
    /// Where a bank finds the sounds it names: files in a folder, entries of
    /// a zip archive, or the game's own asset system.
    ///
    /// ```swift
    /// // The bank's JSON from the game's assets, its sounds too:
    /// let bank = try SoundBank(
    ///     source: bankData, name: "sfx.bank.json",
    ///     resolver: .custom { path in assets.data(named: "sfx/" + path) }, engine: engine)
    /// ```
    public struct SoundResolver: Sendable {
        enum Kind: Sendable {
            case directory(URL)
            case archive(AudioArchive, folder: [String])
            case custom(@Sendable (String) throws -> (any AudioByteSource)?)
        }
        let kind: Kind

        /// Sounds are files, their paths relative to `url` (a folder).
        ///
        /// - Parameter url: The folder the bank's paths start from.
        /// - Returns: The resolver.
        public static func directory(_ url: URL) -> Self { Self(kind: .directory(url)) }

        /// Sounds are entries of `archive`, their paths relative to `directory`
        /// inside it (`""`, the default: the archive's root). `..` steps up a
        /// folder, never out of the archive; a path that starts with `/`
        /// starts at the archive's root.
        ///
        /// - Parameters:
        ///   - archive: The zip archive holding the sounds.
        ///   - directory: The folder inside it the bank's paths start from.
        /// - Returns: The resolver.
        public static func archive(_ archive: AudioArchive, directory: String = "") -> Self {
            Self(kind: .archive(archive, folder: directory.split(separator: "/").map(String.init)))
        }

        /// Sounds come from the game: `resolve` gets each path exactly as the
        /// bank writes it, once per distinct path when the bank loads, and
        /// returns its encoded bytes (`Data` or any ``AudioByteSource``), or
        /// nil when it has no such sound. Its errors are reported as the
        /// bank's, naming the event and the path.
        ///
        /// - Parameter resolve: Returns the encoded bytes at a path, or nil.
        /// - Returns: The resolver.
        public static func custom(_ resolve: @escaping @Sendable (_ path: String) throws -> (any AudioByteSource)?)
            -> Self
        {
            Self(kind: .custom(resolve))
        }

        /// What identifies the sound at `path`: two paths with the same key are one sound.
        func key(path: String, fail: (String) -> BackbeatError) throws -> String {
            switch kind {
            case .directory(let directory):
                return URL(fileURLWithPath: path, relativeTo: directory).standardizedFileURL.path
            case .archive(_, let folder):
                var parts = path.hasPrefix("/") ? [] : folder
                for part in path.split(separator: "/") where part != "." {
                    if part == ".." {
                        guard !parts.isEmpty else { throw fail("leaves the archive") }
                        parts.removeLast()
                    } else {
                        parts.append(String(part))
                    }
                }
                guard !parts.isEmpty else { throw fail("names no entry") }
                return parts.joined(separator: "/")
            case .custom:
                return path
            }
        }

        /// The asset of the sound `key` names; `fail` words a missing or unreadable one.
        func asset(key: String, loopPoints: LoopPoints? = nil, fail: (String) -> BackbeatError) throws -> AudioAsset {
            switch kind {
            case .directory:
                guard FileManager.default.fileExists(atPath: key) else { throw fail("file not found") }
                return AudioAsset(url: URL(fileURLWithPath: key), loopPoints: loopPoints)
            case .archive(let archive, _):
                do {
                    return try archive.asset(path: key, loopPoints: loopPoints)
                } catch let error as BackbeatError {
                    if error.code == .entryNotFound {
                        throw fail("no entry \"\(key)\" in the archive \(archive.url.path)")
                    }
                    throw fail("entry \"\(key)\": \(BankDefinition.describe(error))")
                }
            case .custom(let resolve):
                let source: (any AudioByteSource)?
                do {
                    source = try resolve(key)
                } catch let error as BackbeatError {
                    throw fail("the game's resolver failed: \(BankDefinition.describe(error))")
                } catch {
                    throw fail("the game's resolver failed: \(error)")
                }
                guard let source else { throw fail("the game's resolver has no such sound") }
                return AudioAsset(source: source, name: key, loopPoints: loopPoints)
            }
        }
    }
}
