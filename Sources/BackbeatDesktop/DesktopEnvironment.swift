import BackbeatEngine
import BackbeatMusic
import BackbeatSession
import BackbeatSupport

/// The Linux desktop around the game: the media players on the D-Bus session
/// bus, seen and controlled through MPRIS.
///
/// Given a session, it reports players starting and stopping as
/// ``SessionEvent/otherAudioStarted(name:)`` and ``SessionEvent/otherAudioStopped(name:)``
/// (from PropertiesChanged signals, never by polling), and carries out the
/// session's requests: pausing the players that play, ducking their volume,
/// and giving back exactly what it took.
///
/// ```swift
/// let desktop = DesktopEnvironment(session: engine.session)
/// if case .noDesktopBus(let why) = desktop.status { print("no desktop bus: \(why)") }
/// for player in desktop.players { print(player.name, player.playbackStatus) }
/// ```
///
/// Without a session bus (a headless server, CI) nothing fails: ``status`` is
/// ``Status/noDesktopBus(reason:)``, reported once, and everything else works.
public final class DesktopEnvironment: Sendable {
    /// Whether the environment reached a desktop bus.
    public enum Status: Sendable, Hashable {
        /// Connected to the bus at `address`.
        case connected(address: String)
        /// No bus: the reason, such as "DBUS_SESSION_BUS_ADDRESS is not set".
        case noDesktopBus(reason: String)
    }

    /// Whether the environment reached a desktop bus; set once, at creation.
    public let status: Status
    let client: MPRISClient?
    private let otherAudio: MPRISOtherAudio?
    private let servers = LockedValueBox<[MPRISServer]>([])
    private let publications = LockedValueBox<[DesktopPublication]>([])

    /// Connects to the session bus (or to `busAddress`) and, if `session` is
    /// given, becomes the session's other audio.
    ///
    /// - Parameters:
    ///   - session: The session to tell about other audio and to take requests from.
    ///   - busAddress: A D-Bus address; by default `DBUS_SESSION_BUS_ADDRESS`.
    public convenience init(session: AudioSession? = nil, busAddress: String? = nil) {
        self.init(session: session, resolvedAddress: busAddress ?? DBusConnection.sessionBusAddress())
    }

    /// Connects to `resolvedAddress`; nil means there is no bus.
    init(session: AudioSession?, resolvedAddress: String?) {
        guard let address = resolvedAddress else {
            (status, client, otherAudio) = (.noDesktopBus(reason: "DBUS_SESSION_BUS_ADDRESS is not set"), nil, nil)
            return
        }
        do {
            let connection = try DBusConnection.open(address: address)
            do {
                let client = try MPRISClient(connection: connection)
                let otherAudio = MPRISOtherAudio(client: client, session: session)
                (status, self.client, self.otherAudio) = (.connected(address: address), client, otherAudio)
            } catch {
                connection.close()
                throw error
            }
        } catch {
            (status, client, otherAudio) = (.noDesktopBus(reason: "\(error)"), nil, nil)
            return
        }
        if let session, let otherAudio {
            session.attach(otherAudio: otherAudio)
            otherAudio.start()
        }
    }

    deinit { disconnect() }

    /// Leaves the desktop bus: published players are withdrawn, and what was
    /// sent (such as the `Play` that gives other audio back when the session
    /// is deactivated) is flushed before the connection closes. Call it as the
    /// game ends; the environment does nothing afterwards. Calling it again does nothing.
    public func disconnect() {
        for publication in publications.withLockedValue({ $0 }) { publication.unpublish() }
        client?.connection.close()
    }

    /// Whether a desktop bus was reached.
    public var isConnected: Bool {
        if case .connected = status { return true }
        return false
    }

    /// The media players on the bus now, by name. Empty without a bus.
    public var players: [DesktopPlayer] {
        client?.players.filter { $0.owner != client?.connection.uniqueName }.map(\.publicValue) ?? []
    }

    /// A stream of changes to the players: appeared, changed, vanished. Without
    /// a bus it yields ``DesktopEvent/noDesktopBus(reason:)`` once and finishes.
    /// It keeps the newest 1,024 events its consumer has not read and drops
    /// older ones, so a busy bus cannot grow a slow consumer's memory.
    public func events() -> AsyncStream<DesktopEvent> {
        let (stream, continuation) = AsyncStream<DesktopEvent>.makeStream(
            bufferingPolicy: .bufferingNewest(Self.eventBufferLimit))
        guard let client else {
            if case .noDesktopBus(let reason) = status { continuation.yield(.noDesktopBus(reason: reason)) }
            continuation.finish()
            return stream
        }
        let own = client.connection.uniqueName
        let token = client.observe { change in
            switch change {
            case .appeared(let p) where p.owner != own: continuation.yield(.playerAppeared(p.publicValue))
            case .changed(_, let p) where p.owner != own: continuation.yield(.playerChanged(p.publicValue))
            case .vanished(let p) where p.owner != own: continuation.yield(.playerVanished(name: p.name))
            default: break
            }
        }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }

    /// How many unread events a stream from ``events()`` keeps.
    package static let eventBufferLimit = 1_024

    /// Publishes `player` as `org.mpris.MediaPlayer2.backbeat.<name>` for as long
    /// as the environment lives: any ``MPRISPublishable``. Games publish the
    /// application music player with ``publish(_:name:identity:)``.
    ///
    /// - Throws: ``BackbeatError/Code/noDesktopBus`` without a bus;
    ///   ``BackbeatError/Code/desktopCallFailed`` if the name is taken.
    @discardableResult
    func publish(_ player: any MPRISPublishable, name: String, identity: String) throws -> MPRISServer {
        guard let client else {
            throw BackbeatError(.noDesktopBus, operation: "publish \(name) on the desktop bus", reason: "no bus")
        }
        // One connection has one object at the MPRIS path: one published player per environment.
        let busy =
            servers.withLockedValue { !$0.isEmpty } || publications.withLockedValue { $0.contains { $0.isPublished } }
        guard !busy else {
            throw BackbeatError(
                .invalidArgument, operation: "publish \(name) on the desktop bus",
                reason: "this environment already publishes a player; unpublish it first")
        }
        let server = try MPRISServer(connection: client.connection, name: name, identity: identity, player: player)
        servers.withLockedValue { $0.append(server) }
        return server
    }

    /// Publishes the application music player on the desktop bus as
    /// `org.mpris.MediaPlayer2.backbeat.<name>`, so media keys, desktop widgets
    /// and `playerctl` show and control it: its metadata (with an `mpris:artUrl`
    /// to the item's artwork, written to a temporary folder), its playback
    /// status, and Play, Pause, PlayPause, Next, Previous, Stop, Seek,
    /// SetPosition, LoopStatus, Shuffle and Volume. It stays published until
    /// ``DesktopPublication/unpublish()`` or until the environment is released.
    ///
    /// ```swift
    /// let mpris = try desktop.publish(try MusicPlayer.application(for: engine), name: "drumpad")
    /// ```
    ///
    /// - Parameters:
    ///   - player: The application music player.
    ///   - name: The name after `backbeat.`; characters other than ASCII
    ///     letters, digits and `_` become `_`.
    ///   - identity: What desktop widgets call the player; by default `name`.
    /// - Throws: ``BackbeatError/Code/noDesktopBus`` without a bus,
    ///   ``BackbeatError/Code/desktopCallFailed`` if the name is taken,
    ///   ``BackbeatError/Code/invalidArgument`` if this environment already
    ///   publishes a player.
    @discardableResult
    public func publish(_ player: MusicPlayer, name: String, identity: String? = nil) throws -> DesktopPublication {
        guard client != nil else {
            throw BackbeatError(.noDesktopBus, operation: "publish \(name) on the desktop bus", reason: "no bus")
        }
        let adapter = try MusicPlayer.MPRISAdapter(player: player)
        do {
            let publication = try publications.withLockedValue { list -> DesktopPublication in
                guard let client, !list.contains(where: { $0.isPublished }), servers.withLockedValue({ $0.isEmpty })
                else {
                    throw BackbeatError(
                        .invalidArgument, operation: "publish \(name) on the desktop bus",
                        reason: "this environment already publishes a player; unpublish it first")
                }
                let server = try MPRISServer(
                    connection: client.connection, name: name, identity: identity ?? name, player: adapter)
                let publication = DesktopPublication(server: server, adapter: adapter)
                list.removeAll { !$0.isPublished }
                list.append(publication)
                return publication
            }
            return publication
        } catch {
            adapter.close()
            throw error
        }
    }
}

/// A change to the media players on the desktop.
public enum DesktopEvent: Sendable, Hashable {
    /// There is no desktop bus; reported once.
    case noDesktopBus(reason: String)
    /// A player appeared on the bus.
    case playerAppeared(DesktopPlayer)
    /// A player's state changed.
    case playerChanged(DesktopPlayer)
    /// A player left the bus.
    case playerVanished(name: String)
}
