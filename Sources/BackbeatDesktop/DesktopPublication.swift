import BackbeatMusic
import BackbeatSupport

/// The application music player on the desktop bus, as long as this handle is
/// not unpublished (or its ``DesktopEnvironment`` lives). Made by
/// ``DesktopEnvironment/publish(_:name:identity:)``.
public final class DesktopPublication: Sendable {
    /// The bus name taken, such as `org.mpris.MediaPlayer2.backbeat.drumpad`.
    public let busName: String
    /// The name desktop tools show for it, such as `backbeat.drumpad` in `playerctl -l`.
    public var playerName: String { String(busName.dropFirst(DBusNames.mprisPrefix.count)) }
    let server: MPRISServer
    let adapter: MusicPlayer.MPRISAdapter
    private let published = LockedValueBox(true)

    init(server: MPRISServer, adapter: MusicPlayer.MPRISAdapter) {
        self.server = server
        self.adapter = adapter
        busName = server.busName
    }

    /// Whether the player is still on the bus.
    public var isPublished: Bool { published.withLockedValue { $0 } }

    /// Takes the player off the bus and removes its artwork files. Calling it again does nothing.
    public func unpublish() {
        let was = published.withLockedValue { p in
            defer { p = false }
            return p
        }
        guard was else { return }
        server.close()
        adapter.close()
    }
}
