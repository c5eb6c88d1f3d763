import BackbeatEngine
import BackbeatSupport
import Dispatch

/// Watches the MPRIS players on a bus and sends them commands.
///
/// Players are discovered once with ListNames, then followed through
/// NameOwnerChanged and PropertiesChanged signals: nothing is polled. A player
/// that vanishes mid-call, answers with malformed properties, or never answers
/// is skipped (see ``skips``); it never blocks the watcher.
final class MPRISClient: Sendable {
    /// A change to the set of players or to one player's state.
    enum Change: Sendable {
        case appeared(MPRISPlayerState)
        case changed(old: MPRISPlayerState, new: MPRISPlayerState)
        case vanished(MPRISPlayerState)
    }

    let connection: DBusConnection
    /// How long one call to a player may take.
    let timeout: Duration

    private struct State {
        var players: [String: MPRISPlayerState] = [:]
        /// Bus names being discovered, with the owner they are discovered for.
        var discovering: [String: String] = [:]
        var sequence: UInt64 = 0
        var skips: [String] = []
    }
    private let state = LockedValueBox(State())
    /// The observers of changes (see ``observe(_:)``).
    private let changes = EventBroadcast<Change>()
    /// Observers are called here, in order, never on the connection's thread.
    private let delivery = DispatchQueue(label: "backbeat.mpris.changes")

    /// Starts watching; returns once the players already on the bus are known
    /// (each given at most `timeout` to answer).
    init(connection: DBusConnection, timeout: Duration = .seconds(2)) throws {
        self.connection = connection
        self.timeout = timeout
        connection.observeSignals { [weak self] message in self?.handle(message) }
        try connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0namespace='org.mpris.MediaPlayer2'"
        )
        try connection.addMatch(
            "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='/org/mpris/MediaPlayer2'"
        )
        try connection.addMatch(
            "type='signal',interface='org.mpris.MediaPlayer2.Player',member='Seeked',path='/org/mpris/MediaPlayer2'")
        let names = try connection.call(.bus("ListNames"), timeout: timeout).first?.strings ?? []
        let group = DispatchGroup()
        for name in names where name.hasPrefix(DBusNames.mprisPrefix) {
            group.enter()
            connection.callAsync(.bus("GetNameOwner", [.string(name)]), timeout: timeout) { [weak self] result in
                if case .success(let body) = result, let owner = body.first?.string {
                    self?.discover(name, owner: owner) { group.leave() }
                } else {
                    self?.skip("\(name): vanished before it said who owns it")
                    group.leave()
                }
            }
        }
        _ = group.wait(timeout: .now() + .seconds(Int(timeout.components.seconds) * 2 + 1))
    }

    // MARK: Reading

    /// Every player known now, by bus name.
    var players: [MPRISPlayerState] {
        state.withLockedValue { $0.players.values.sorted { $0.busName < $1.busName } }
    }

    func player(busName: String) -> MPRISPlayerState? {
        state.withLockedValue { $0.players[busName] }
    }

    /// Finds a player by its MPRIS name (`mpv`), bus name or identity.
    func player(named name: String) -> MPRISPlayerState? {
        state.withLockedValue { s in
            s.players[name] ?? s.players[DBusNames.mprisPrefix + name]
                ?? s.players.values.first { $0.identity == name || $0.name.hasPrefix(name + ".") }
        }
    }

    /// What was skipped and why, most recent last (at most 50).
    var skips: [String] { state.withLockedValue { $0.skips } }

    /// Calls `observer` with every change from now on, in order, on a queue of
    /// its own, until the returned token is cancelled.
    @discardableResult
    func observe(_ observer: @escaping @Sendable (Change) -> Void) -> ObservationToken {
        changes.observe(observer)
    }

    /// Waits until the queue has delivered every change posted so far.
    func flushDeliveries() { delivery.sync {} }

    // MARK: Commands

    /// Calls a method of `org.mpris.MediaPlayer2.Player` and waits for the answer.
    func send(_ method: String, to busName: String, arguments: [DBusValue] = []) throws {
        _ = try connection.call(
            DBusCall(
                destination: busName, path: DBusNames.mprisPath,
                interface: DBusNames.mprisPlayer, member: method, arguments: arguments),
            timeout: timeout)
    }

    /// Calls a method without waiting; failures are recorded as skips.
    func sendAsync(_ method: String, to busName: String, arguments: [DBusValue] = []) {
        connection.callAsync(
            DBusCall(
                destination: busName, path: DBusNames.mprisPath, interface: DBusNames.mprisPlayer,
                member: method, arguments: arguments), timeout: timeout
        ) { [weak self] result in
            if case .failure(let error) = result { self?.skip(error.description) }
        }
    }

    /// Sets a property of `org.mpris.MediaPlayer2.Player`.
    func setProperty(_ name: String, _ value: DBusValue, on busName: String, wait: Bool = true) throws {
        let call = DBusCall.setProperty(
            busName, path: DBusNames.mprisPath, interface: DBusNames.mprisPlayer,
            name: name, value: value)
        if wait {
            _ = try connection.call(call, timeout: timeout)
        } else {
            connection.callAsync(call, timeout: timeout) { [weak self] result in
                if case .failure(let error) = result { self?.skip(error.description) }
            }
        }
    }

    /// Reads the player's position now, in microseconds (MPRIS does not signal it).
    func readPosition(of busName: String) throws -> Int64 {
        let reply = try connection.call(
            .getProperty(
                busName, path: DBusNames.mprisPath, interface: DBusNames.mprisPlayer,
                name: "Position"), timeout: timeout)
        guard let position = reply.first?.int64 else {
            throw BackbeatError(.desktopCallFailed, operation: "\(busName) Position", reason: "not an integer")
        }
        return position
    }

    /// Calls a method of another MPRIS interface (TrackList).
    func call(_ interface: String, _ method: String, on busName: String, arguments: [DBusValue]) throws -> [DBusValue] {
        try connection.call(
            DBusCall(
                destination: busName, path: DBusNames.mprisPath, interface: interface,
                member: method, arguments: arguments), timeout: timeout)
    }

    // MARK: Following the bus (on the connection's thread)

    private func skip(_ why: String) {
        state.withLockedValue { s in
            s.skips.append(why)
            if s.skips.count > 50 { s.skips.removeFirst(s.skips.count - 50) }
        }
    }

    /// Reads a player's properties, then adds it. Calls `done` when settled.
    private func discover(_ busName: String, owner: String, done: @escaping @Sendable () -> Void = {}) {
        state.withLockedValue { $0.discovering[busName] = owner }
        let call = DBusCall.getAllProperties(busName, path: DBusNames.mprisPath, interface: DBusNames.mprisPlayer)
        connection.callAsync(call, timeout: timeout) { [weak self] result in
            guard let self else { return done() }
            switch result {
            case .failure(let error):
                self.abandon(busName, owner: owner, because: error.description)
                done()
            case .success(let body):
                guard let properties = body.first?.dictionary else {
                    self.abandon(busName, owner: owner, because: "\(busName): GetAll gave no property dictionary")
                    return done()
                }
                let rootCall = DBusCall.getAllProperties(
                    busName, path: DBusNames.mprisPath, interface: DBusNames.mprisRoot)
                self.connection.callAsync(rootCall, timeout: self.timeout) { [weak self] rootResult in
                    defer { done() }
                    guard let self else { return }
                    var player = MPRISPlayerState(busName: busName, owner: owner)
                    player.applyPlayer(properties)
                    if case .success(let rootBody) = rootResult, let root = rootBody.first?.dictionary {
                        player.applyRoot(root)
                    }
                    self.add(player)
                }
            }
        }
    }

    private func abandon(_ busName: String, owner: String, because why: String) {
        state.withLockedValue { s in
            if s.discovering[busName] == owner { s.discovering[busName] = nil }
        }
        skip(why)
    }

    private func add(_ player: MPRISPlayerState) {
        var player = player
        let change = state.withLockedValue { s -> Change? in
            // Vanished or replaced while its properties were being read.
            guard s.discovering[player.busName] == player.owner else { return nil }
            s.discovering[player.busName] = nil
            if player.isPlaying {
                s.sequence += 1
                player.playingSequence = s.sequence
            }
            let old = s.players[player.busName]
            s.players[player.busName] = player
            return old.map { .changed(old: $0, new: player) } ?? .appeared(player)
        }
        if let change { deliver([change]) }
    }

    private func deliver(_ changes: [Change]) {
        guard !changes.isEmpty else { return }
        let broadcast = self.changes
        delivery.async {
            for change in changes { broadcast.send(change) }
        }
    }

    private func handle(_ message: DBusMessage) {
        switch (message.interface, message.member) {
        case (DBusNames.bus?, "NameOwnerChanged"?):
            // Only the bus says who owns a name. Any peer can send a signal of
            // this name straight to us; believed, it could make a paused or
            // ducked player "vanish" and never be given back.
            guard message.sender == DBusNames.bus else {
                skip("\(message.sender ?? "?"): NameOwnerChanged not from the bus, ignored")
                return
            }
            guard message.body.count == 3, let name = message.body[0].string, name.hasPrefix(DBusNames.mprisPrefix),
                let oldOwner = message.body[1].string, let newOwner = message.body[2].string
            else { return }
            if !oldOwner.isEmpty {
                let gone = state.withLockedValue { s -> MPRISPlayerState? in
                    if s.discovering[name] == oldOwner { s.discovering[name] = nil }
                    // A stale or forged old owner removes nothing.
                    guard s.players[name]?.owner == oldOwner else { return nil }
                    return s.players.removeValue(forKey: name)
                }
                if let gone { deliver([.vanished(gone)]) }
            }
            if !newOwner.isEmpty { discover(name, owner: newOwner) }
        case (DBusNames.properties?, "PropertiesChanged"?):
            guard message.path == DBusNames.mprisPath, let sender = message.sender else { return }
            guard message.body.count >= 2, let interface = message.body[0].string,
                let changed = message.body[1].dictionary
            else {
                skip("\(sender): malformed PropertiesChanged")
                return
            }
            let invalidated = message.body.count > 2 ? message.body[2].strings ?? [] : []
            apply(changed, interface: interface, from: sender)
            if interface == DBusNames.mprisPlayer, !invalidated.isEmpty { refetch(invalidated, from: sender) }
        case (DBusNames.mprisPlayer?, "Seeked"?):
            guard let sender = message.sender, let position = message.body.first?.int64 else { return }
            apply(["Position": .int64(position)], interface: DBusNames.mprisPlayer, from: sender)
        default:
            break
        }
    }

    private func apply(_ properties: [String: DBusValue], interface: String, from owner: String) {
        let changes = state.withLockedValue { s -> [Change] in
            var changes: [Change] = []
            for (name, old) in s.players where old.owner == owner {
                var new = old
                if interface == DBusNames.mprisPlayer {
                    new.applyPlayer(properties)
                } else if interface == DBusNames.mprisRoot {
                    new.applyRoot(properties)
                } else {
                    continue
                }
                if new.isPlaying, !old.isPlaying {
                    s.sequence += 1
                    new.playingSequence = s.sequence
                }
                guard new != old else { continue }
                s.players[name] = new
                changes.append(.changed(old: old, new: new))
            }
            return changes
        }
        deliver(changes)
    }

    /// Some players invalidate a property instead of sending its value: read it.
    private func refetch(_ names: [String], from owner: String) {
        let busNames = state.withLockedValue { $0.players.values.filter { $0.owner == owner }.map(\.busName) }
        for busName in busNames {
            for name in names {
                connection.callAsync(
                    .getProperty(busName, path: DBusNames.mprisPath, interface: DBusNames.mprisPlayer, name: name),
                    timeout: timeout
                ) { [weak self] result in
                    switch result {
                    case .success(let body):
                        if let value = body.first {
                            self?.apply([name: value], interface: DBusNames.mprisPlayer, from: owner)
                        }
                    case .failure(let error):
                        self?.skip(error.description)
                    }
                }
            }
        }
    }
}
