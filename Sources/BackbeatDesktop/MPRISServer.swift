import BackbeatMusic
import BackbeatSupport

/// Publishes a music player on the desktop bus as
/// `org.mpris.MediaPlayer2.backbeat.<name>`, so media keys, desktop widgets and
/// `playerctl` see and control it.
final class MPRISServer: Sendable {
    let busName: String
    let identity: String
    private let connection: DBusConnection
    private let player: any MPRISPublishable
    private let dispatch: MPRISDispatch
    private let playerObservation = LockedValueBox<ObservationToken?>(nil)
    /// The player's properties as last published, to signal only what changed.
    private let published = LockedValueBox<[String: DBusValue]>([:])

    /// Exports the player and takes its bus name.
    ///
    /// - Throws: ``BackbeatError/Code/desktopCallFailed`` if the name is taken.
    init(connection: DBusConnection, name: String, identity: String, player: any MPRISPublishable) throws {
        let safe = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" })
        busName = DBusNames.mprisPrefix + "backbeat." + (safe.isEmpty || safe.first!.isNumber ? "_" + safe : safe)
        self.identity = identity
        self.connection = connection
        self.player = player
        dispatch = MPRISDispatch(identity: identity, player: player)
        published.withLockedValue { $0 = Self.playerProperties(player.mprisState) }
        connection.export(path: DBusNames.mprisPath) { [weak self] call in
            self?.dispatch.answer(call) ?? .unknownMethod(call)
        }
        let reply = try connection.call(.bus("RequestName", [.string(busName), .uint32(4)]))
        guard reply.first?.int64 == 1 else {
            connection.unexport(path: DBusNames.mprisPath)
            throw BackbeatError(.desktopCallFailed, operation: "RequestName \(busName)", reason: "the name is taken")
        }
        let token = player.mprisObserve { [weak self] in self?.publishChanges() }
        playerObservation.withLockedValue { $0 = token }
    }

    /// Leaves the bus.
    func close() {
        playerObservation.withLockedValue { $0 }?.cancel()
        connection.unexport(path: DBusNames.mprisPath)
        connection.callAsync(.bus("ReleaseName", [.string(busName)])) { _ in }
    }

    // MARK: Properties

    static func playerProperties(_ state: MPRISPublishedState) -> [String: DBusValue] {
        let metadata =
            state.nowPlaying?.metadata(defaultTrackID: "/org/backbeat/track/\(state.queueIndex)")
            ?? ["mpris:trackid": .objectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack")]
        return [
            "PlaybackStatus": .string(state.status.mpris),
            "LoopStatus": .string(state.repeatMode.loopStatus),
            "Rate": .double(1), "MinimumRate": .double(1), "MaximumRate": .double(1),
            "Shuffle": .bool(state.isShuffling),
            "Metadata": .dictionary(metadata),
            "Volume": .double(state.volume),
            "Position": .int64(state.position),
            "CanGoNext": .bool(state.canGoNext), "CanGoPrevious": .bool(state.canGoPrevious),
            "CanPlay": .bool(true), "CanPause": .bool(true), "CanSeek": .bool(true), "CanControl": .bool(true),
        ]
    }

    /// Signals the properties that changed since last time (Position is read, never signalled).
    private func publishChanges() {
        let now = Self.playerProperties(player.mprisState)
        let changed = published.withLockedValue { last -> [String: DBusValue] in
            let changed = now.filter { $0.key != "Position" && last[$0.key] != $0.value }
            last = now
            return changed
        }
        guard !changed.isEmpty else { return }
        connection.emitSignal(
            path: DBusNames.mprisPath, interface: DBusNames.properties, member: "PropertiesChanged",
            arguments: [.string(DBusNames.mprisPlayer), .dictionary(changed), .strings([])])
    }
}

/// How the MPRIS object answers calls, apart from the bus (so it can be driven
/// directly, as the dispatch fuzzer does). Runs on the connection's thread.
struct MPRISDispatch: Sendable {
    let identity: String
    let player: any MPRISPublishable

    private var rootProperties: [String: DBusValue] {
        [
            "CanQuit": .bool(false), "CanRaise": .bool(false), "HasTrackList": .bool(false),
            "Identity": .string(identity), "DesktopEntry": .string("backbeat"),
            "SupportedUriSchemes": .strings([]), "SupportedMimeTypes": .strings([]),
        ]
    }

    private func properties(of interface: String) -> [String: DBusValue]? {
        switch interface {
        case DBusNames.mprisRoot: rootProperties
        case DBusNames.mprisPlayer: MPRISServer.playerProperties(player.mprisState)
        default: nil
        }
    }

    /// The reply to one method call on the MPRIS object: property reads and
    /// writes, and the player's methods. Whatever a peer sends gets a reply.
    func answer(_ call: DBusMessage) -> DBusReply {
        switch (call.interface, call.member) {
        case (DBusNames.properties?, "Get"?):
            guard call.body.count == 2, let interface = call.body[0].string, let name = call.body[1].string,
                let value = properties(of: interface)?[name]
            else { return .invalidArgs("no such property") }
            return .values([.variant(value)])
        case (DBusNames.properties?, "GetAll"?):
            guard let interface = call.body.first?.string else { return .invalidArgs("GetAll needs an interface") }
            return .values([.dictionary(properties(of: interface) ?? [:])])
        case (DBusNames.properties?, "Set"?):
            guard call.body.count == 3, call.body[0].string == DBusNames.mprisPlayer, let name = call.body[1].string
            else {
                return .invalidArgs("read-only property")
            }
            let value = call.body[2]
            switch name {
            case "LoopStatus":
                guard let mode = value.string.flatMap(MusicPlayer.RepeatMode.init(loopStatus:)) else {
                    return .invalidArgs("LoopStatus")
                }
                player.mprisControl(.setRepeatMode(mode))
            case "Shuffle":
                guard let on = value.bool else { return .invalidArgs("Shuffle") }
                player.mprisControl(.setShuffle(on))
            case "Volume":
                guard let volume = value.double else { return .invalidArgs("Volume") }
                player.mprisControl(.setVolume(max(0, volume)))
            default:
                return .invalidArgs("read-only property \(name)")
            }
            return .ok
        case (DBusNames.mprisRoot?, "Raise"?), (DBusNames.mprisRoot?, "Quit"?):
            return .ok
        case (DBusNames.mprisPlayer?, let member?):
            let command: MPRISCommand
            switch member {
            case "Play": command = .play
            case "Pause": command = .pause
            case "PlayPause": command = .playPause
            case "Stop": command = .stop
            case "Next": command = .next
            case "Previous": command = .previous
            case "Seek":
                guard let offset = call.body.first?.int64 else { return .invalidArgs("Seek needs an offset") }
                command = .seek(by: offset)
            case "SetPosition":
                guard call.body.count == 2, let trackID = call.body[0].string, let position = call.body[1].int64
                else {
                    return .invalidArgs("SetPosition needs a track ID and a position")
                }
                command = .setPosition(trackID: trackID, microseconds: position)
            case "OpenUri":
                return .error(
                    name: "org.mpris.MediaPlayer2.Error.NotSupported", message: "Backbeat plays its own queue")
            default:
                return .unknownMethod(call)
            }
            player.mprisControl(command)
            return .ok
        default:
            return .unknownMethod(call)
        }
    }
}
