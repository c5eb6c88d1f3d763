import BackbeatSession
import BackbeatSupport

/// Other audio on the Linux desktop: the MPRIS players on the session bus.
///
/// It tells a session when a player starts or stops playing, and carries out
/// the session's requests: interrupting pauses the players that are playing
/// and remembers exactly which; restoring resumes those, unless someone else
/// resumed, stopped or closed them since, and puts ducked volumes back, only if
/// nobody changed them since.
final class MPRISOtherAudio: OtherAudioController {
    /// Ducking multiplies a player's volume by this (about -12 dB).
    static let duckFactor = 0.25

    private let client: MPRISClient
    /// Players owned by this connection are the game's own, never other audio.
    private let ownOwner: String
    private weak let session: AudioSession?

    /// A player as it was when Backbeat acted on it.
    private struct Key: Hashable {
        var busName: String
        var owner: String
    }
    private struct State {
        var interrupted: Set<Key> = []
        /// Interrupted players seen paused since: one of these seen playing
        /// again was resumed by someone else, and is no longer ours to resume.
        var seenPaused: Set<Key> = []
        /// Volume before ducking and the volume set.
        var ducked: [Key: (original: Double, lowered: Double)] = [:]
        /// Players the session has been told are playing.
        var reportedPlaying: Set<String> = []
    }
    private let state = LockedValueBox(State())

    init(client: MPRISClient, session: AudioSession?) {
        self.client = client
        self.ownOwner = client.connection.uniqueName
        self.session = session
    }

    /// Reports the players playing now, then follows changes.
    func start() {
        client.observe { [weak self] change in self?.handle(change) }
        for player in client.players where player.isPlaying { report(player.name, playing: true) }
    }

    private func isOther(_ player: MPRISPlayerState) -> Bool { player.owner != ownOwner }

    private func handle(_ change: MPRISClient.Change) {
        followInterrupted(change)
        switch change {
        case .appeared(let player) where isOther(player):
            if player.isPlaying { report(player.name, playing: true) }
        case .changed(let old, let new) where isOther(new):
            if new.isPlaying != old.isPlaying { report(new.name, playing: new.isPlaying) }
        case .vanished(let player) where isOther(player):
            report(player.name, playing: false)
        default:
            break
        }
    }

    /// Keeps `interrupted` to the players that are still paused by the
    /// session's request: one that someone else resumed, or that stopped or
    /// left, is dropped. (Its state is followed from the signals, so a Pause
    /// whose signal has not arrived when the session restores still counts.)
    private func followInterrupted(_ change: MPRISClient.Change) {
        state.withLockedValue { s in
            switch change {
            case .changed(_, let new), .appeared(let new):
                let key = Key(busName: new.busName, owner: new.owner)
                guard s.interrupted.contains(key) else { return }
                if new.playbackStatus == "Paused" {
                    s.seenPaused.insert(key)
                } else if new.playbackStatus == "Stopped" || (new.isPlaying && s.seenPaused.contains(key)) {
                    s.interrupted.remove(key)
                    s.seenPaused.remove(key)
                }
            case .vanished(let old):
                let key = Key(busName: old.busName, owner: old.owner)
                s.interrupted.remove(key)
                s.seenPaused.remove(key)
            }
        }
    }

    private func report(_ name: String, playing: Bool) {
        let changed = state.withLockedValue { s in
            playing ? s.reportedPlaying.insert(name).inserted : s.reportedPlaying.remove(name) != nil
        }
        guard changed, let session else { return }
        session.post(
            playing ? .otherAudioStarted(name: name) : .otherAudioStopped(name: name),
            source: .system, at: session.clock())
    }

    // MARK: OtherAudioController (never blocks: the session may call from any thread)

    func interruptOtherAudio() {
        let playing = client.players.filter { $0.isPlaying && isOther($0) }
        state.withLockedValue { s in
            for player in playing { s.interrupted.insert(Key(busName: player.busName, owner: player.owner)) }
        }
        for player in playing { client.sendAsync("Pause", to: player.busName) }
    }

    func duckOtherAudio() {
        let targets = client.players.filter { $0.isPlaying && isOther($0) && $0.volume != nil }
        let changes = state.withLockedValue { s -> [(String, Double)] in
            var changes: [(String, Double)] = []
            for player in targets {
                let key = Key(busName: player.busName, owner: player.owner)
                guard s.ducked[key] == nil, let volume = player.volume else { continue }
                let lowered = volume * Self.duckFactor
                s.ducked[key] = (volume, lowered)
                changes.append((player.busName, lowered))
            }
            return changes
        }
        for (busName, volume) in changes {
            try? client.setProperty("Volume", .double(volume), on: busName, wait: false)
        }
    }

    func restoreOtherAudio() {
        let (interrupted, ducked) = state.withLockedValue { s in
            defer {
                s.interrupted = []
                s.seenPaused = []
                s.ducked = [:]
            }
            return (s.interrupted, s.ducked)
        }
        for key in interrupted {
            guard let player = client.player(busName: key.busName), player.owner == key.owner else { continue }
            client.sendAsync("Play", to: key.busName)
        }
        for (key, volumes) in ducked {
            guard let player = client.player(busName: key.busName), player.owner == key.owner,
                let volume = player.volume, abs(volume - volumes.lowered) < 0.01
            else { continue }
            try? client.setProperty("Volume", .double(volumes.original), on: key.busName, wait: false)
        }
    }
}
