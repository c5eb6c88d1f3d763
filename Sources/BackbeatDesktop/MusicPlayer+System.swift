import BackbeatMusic
import BackbeatSupport

extension MusicPlayer {
    /// The user's own media player on the desktop, seen through MPRIS: like
    /// `systemMusicPlayer`, its queue and state belong to the user and outlive
    /// the game.
    ///
    /// It is a ``SystemMusicPlayer``, not a `MusicPlayer`: the application
    /// player plays ``MediaItem``s from a library in the game's own engine,
    /// while this one remote-controls another program, whose tracks have no
    /// library entry (``NowPlayingInfo``) and whose every command can fail.
    ///
    /// - Parameters:
    ///   - desktop: The desktop bus to look on.
    ///   - name: A player's MPRIS name (`mpv`, `vlc`), bus name or identity;
    ///     nil follows whichever player most recently started playing.
    /// - Throws: ``BackbeatError/Code/noDesktopBus`` when `desktop` has no bus.
    ///   A player that is not there yet is no error: commands throw
    ///   ``BackbeatError/Code/playerNotFound`` until it appears.
    public static func system(on desktop: DesktopEnvironment, named name: String? = nil) throws -> SystemMusicPlayer {
        guard let client = desktop.client else {
            let reason: String? = if case .noDesktopBus(let why) = desktop.status { why } else { nil }
            throw BackbeatError(.noDesktopBus, operation: "MusicPlayer.system", reason: reason)
        }
        return SystemMusicPlayer(environment: desktop, client: client, name: name)
    }
}
