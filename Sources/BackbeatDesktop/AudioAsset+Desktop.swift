import BackbeatMedia
import Foundation

extension AudioAsset {
    /// The track's location as another program can read it (MPRIS `xesam:url`):
    /// a file's (or other URL's) own; for an archive entry, the archive's file URL with the
    /// path inside it as the fragment (`file:///games/pack.zip#music/theme.ogg`);
    /// nil for bytes in memory or from a game's own source, which have no
    /// location outside the game.
    var desktopURL: URL? {
        if readsURL { return url }
        guard let entry = archiveEntry, entry.archive.isFileURL,
            var components = URLComponents(url: entry.archive.standardizedFileURL, resolvingAgainstBaseURL: false)
        else { return nil }
        components.fragment = entry.path
        return components.url
    }
}
