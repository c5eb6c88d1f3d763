import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SoundEffect: ReloadableFile {
    /// Whether the sound follows its file while the game runs: when the file
    /// is written or replaced (an editor that renames a temporary file over
    /// it included), the next play decodes the new file, voices playing
    /// finish on the old buffer, and the old buffer is freed when the last
    /// of them ends. A file that no longer decodes keeps the old sound and
    /// logs one line (and sends it to a monitor).
    ///
    /// On by default while the engine serves monitors (``AudioEngine/isMonitoring``
    /// when the sound loads), off otherwise; `backbeat monitor PID --reload`
    /// reloads changed files either way. Only a sound decoded from a file
    /// follows it; setting it on other sounds changes nothing.
    public var reloadsWhenChanged: Bool {
        get {
            guard let engine else { return false }
            return engine.withLock(waking: false) { followsFile ?? engine.isServingMonitorsLocked }
        }
        set {
            guard let engine else { return }
            engine.withLock {
                followsFile = newValue
                if case .loaded = loadState, fileURL != nil {
                    engine.fileWatchLocked.setFollowsLocked(self, newValue)
                }
            }
            engine.deliverPendingEvents()
        }
    }

    /// The file the sound decodes, if it is one.
    var fileURL: URL? {
        guard case .asset(let asset) = origin, asset.url.isFileURL else { return nil }
        return asset.url
    }

    /// Tells the engine's file watch which file the sound was just decoded
    /// from, and whether to follow it. With the lock held.
    ///
    /// - Parameter fingerprint: The file as it was when the decode began.
    func registerFileLocked(_ fingerprint: FileStamp?) {
        guard let engine, let url = fileURL else { return }
        engine.fileWatchLocked.registerLocked(
            self, path: url.standardizedFileURL.path, fingerprint: fingerprint,
            follows: followsFile ?? engine.isServingMonitorsLocked)
    }

    package func reloadLocked(done: @escaping @Sendable (FileReloadOutcome) -> Void) {
        guard let engine, let url = fileURL else {
            return done(.failed("\(name): not a file"))
        }
        let path = url.path
        let name = name
        engine.effectCacheLocked.reloadLocked(self) { [weak engine] result in
            guard let engine else { return }
            switch result {
            case .success:
                engine.logLocked(
                    .info, "\(path): sound reloaded", key: "soundReloaded:\(name)", problem: "soundReloaded")
                done(.reloaded("\(path): sound reloaded"))
            case .failure(let error):
                let line = "\(path): reload failed, the old sound stays: \(error.reason ?? error.code.description)"
                engine.logLocked(.warning, line, key: "reloadFailed:\(name)", problem: "reloadFailed")
                done(.failed(line))
            }
        }
    }
}
