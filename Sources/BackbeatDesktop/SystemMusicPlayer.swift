import BackbeatMedia
import BackbeatMusic
import BackbeatSupport
import Foundation

/// The user's own media player, seen through MPRIS: what
/// `MPMusicPlayerController.systemMusicPlayer` was on iOS. Made with
/// ``MusicPlayer/system(on:named:)``.
///
/// It follows the player it was named for, or else the player on the desktop
/// bus that most recently started playing (it may change as the user switches
/// players). Its queue and state are that player's own: they outlive the game.
///
/// Reading is free (the state comes from the player's PropertiesChanged
/// signals); commands are calls to another program, so they can fail, and
/// throw: ``BackbeatError/Code/playerNotFound`` when no player is there (or it
/// quit during the call), ``BackbeatError/Code/unsupportedByPlayer`` when it
/// says it cannot, ``BackbeatError/Code/desktopCallTimedOut`` when it does not
/// answer in time (2 s).
///
/// ```swift
/// let system = try MusicPlayer.system(on: desktop)          // or named: "mpv"
/// print(system.nowPlayingItem?.title ?? "-", system.playbackState)
/// try system.skipToNextItem()
/// ```
///
/// The track is a ``NowPlayingInfo``, not a ``MediaItem``: a song in another
/// program's queue has no library entry, persistent ID or play count.
public final class SystemMusicPlayer: Sendable {
    /// A playback event, as the application player's, with the system
    /// player's track type.
    public enum Event: Sendable, Equatable {
        /// ``playbackState`` changed.
        case playbackStateDidChange(MusicPlayer.PlaybackState)
        /// ``nowPlayingItem`` changed (also when the followed player changes).
        case nowPlayingItemDidChange(NowPlayingInfo?)
        /// ``volume`` changed.
        case volumeDidChange(Float)
    }

    /// The desktop this player is seen through (kept alive by the player).
    public let environment: DesktopEnvironment
    /// The name asked for, or nil to follow the most recently playing player.
    public let requestedName: String?
    private let client: MPRISClient

    private struct Snapshot: Equatable {
        var state: MusicPlayer.PlaybackState = .stopped
        var item: NowPlayingInfo?
        var volume: Float?
    }
    private struct State {
        var notifying = 0
        var last = Snapshot()
        var observer: ObservationToken?
    }
    private let state = LockedValueBox(State())
    private let broadcast = EventBroadcast<Event>(bufferLimit: 1_024)

    init(environment: DesktopEnvironment, client: MPRISClient, name: String?) {
        self.environment = environment
        self.client = client
        requestedName = name
        let token = client.observe { [weak self] _ in self?.update() }
        state.withLockedValue { s in
            s.observer = token
            s.last = snapshot(of: target())
        }
    }

    deinit {
        state.withLockedValue { $0.observer }?.cancel()
        broadcast.finish()
    }

    // MARK: Which player

    /// The player followed now: by name, or the one most recently playing
    /// (with none playing since the game started watching, the first by bus
    /// name). The game's own published players are never followed.
    func target() -> MPRISPlayerState? {
        let own = client.connection.uniqueName
        let candidates = client.players.filter { $0.owner != own }
        if let requestedName {
            return candidates.first { $0.busName == requestedName || $0.name == requestedName }
                ?? candidates.first { $0.identity == requestedName || $0.name.hasPrefix(requestedName + ".") }
        }
        return candidates.reduce(nil) { best, p in
            guard let best else { return p }
            return p.playingSequence > best.playingSequence ? p : best
        }
    }

    private func resolve(_ operation: String) throws -> MPRISPlayerState {
        guard let player = target() else {
            throw BackbeatError(
                .playerNotFound, operation: "system music player \(operation)",
                reason: requestedName.map { "no player named \($0) on the desktop bus" }
                    ?? "no media player on the desktop bus")
        }
        return player
    }

    /// The MPRIS name of the player followed now (such as `mpv`), or nil when there is none.
    public var playerName: String? { target()?.name }

    // MARK: Reading

    /// What the player is doing; ``MusicPlayer/PlaybackState/stopped`` when there is no player.
    public var playbackState: MusicPlayer.PlaybackState { Self.playbackState(of: target()) }

    /// The player's track, from its Metadata; nil without a player or a track.
    public var nowPlayingItem: NowPlayingInfo? { target()?.nowPlaying }

    /// How the player repeats; nil when it does not say (it has no LoopStatus).
    public var repeatMode: MusicPlayer.RepeatMode? {
        target()?.loopStatus.flatMap(MusicPlayer.RepeatMode.init(loopStatus:))
    }

    /// ``MusicPlayer/ShuffleMode/songs`` or ``MusicPlayer/ShuffleMode/off``;
    /// nil when the player does not say. MPRIS has no album shuffle.
    public var shuffleMode: MusicPlayer.ShuffleMode? { target()?.shuffle.map { $0 ? .songs : .off } }

    /// The player's volume, 0...1 (some players go above 1); nil when it has none.
    public var volume: Float? { target()?.volume.map { Float($0) } }

    /// The position in the track, read from the player now (MPRIS does not
    /// signal it), in microseconds as the player reports it; a negative
    /// report (Int64.min included) reads as zero.
    public var currentPlaybackTime: MediaTime {
        get throws {
            let player = try resolve("currentPlaybackTime")
            return try mapped("currentPlaybackTime", player) {
                MediaTime(value: max(0, try client.readPosition(of: player.busName)), timescale: 1_000_000)
            }
        }
    }

    // MARK: Transport

    /// Plays.
    public func play() throws { try send("Play", "play") }
    /// Pauses.
    public func pause() throws { try send("Pause", "pause") }
    /// Stops.
    public func stop() throws { try send("Stop", "stop") }
    /// Moves to the next track.
    public func skipToNextItem() throws { try send("Next", "skipToNextItem") }
    /// Moves to the previous track (players usually restart a track that has played a while).
    public func skipToPreviousItem() throws { try send("Previous", "skipToPreviousItem") }

    /// Moves to `time` into the track (below zero clamps to zero).
    ///
    /// Uses SetPosition with the track's ID; a player that gives no ID is moved
    /// with a relative Seek from its position now.
    ///
    /// - Parameter time: The position in the track.
    /// - Throws: ``BackbeatError`` when the player refuses or is gone.
    public func seek(to time: MediaTime) throws {
        let player = try resolve("seek")
        guard player.canSeek != false else {
            throw BackbeatError(
                .unsupportedByPlayer, operation: "system music player seek", reason: "\(player.name) cannot seek")
        }
        let target = max(0, time.converted(to: 1_000_000).value)
        try mapped("seek", player) {
            if let id = NowPlayingInfo.validTrackID(player.metadata["mpris:trackid"]?.string) {
                try client.send("SetPosition", to: player.busName, arguments: [.objectPath(id), .int64(target)])
            } else {
                let now = try client.readPosition(of: player.busName)
                // A player may report any position, Int64.min included: the offset saturates.
                let (offset, overflow) = target.subtractingReportingOverflow(now)
                try client.send("Seek", to: player.busName, arguments: [.int64(overflow ? .max : offset)])
            }
        }
    }

    /// Sets how the player repeats (LoopStatus).
    ///
    /// - Parameter mode: None, one track or the whole queue.
    /// - Throws: ``BackbeatError`` when the player refuses or is gone.
    public func setRepeatMode(_ mode: MusicPlayer.RepeatMode) throws {
        let player = try resolve("setRepeatMode")
        guard player.loopStatus != nil else {
            throw BackbeatError(
                .unsupportedByPlayer, operation: "system music player setRepeatMode",
                reason: "\(player.name) has no LoopStatus")
        }
        try mapped("setRepeatMode", player) {
            try client.setProperty("LoopStatus", .string(mode.loopStatus), on: player.busName)
        }
    }

    /// Turns shuffle on (``MusicPlayer/ShuffleMode/songs``) or off.
    /// ``MusicPlayer/ShuffleMode/albums`` is unsupported: MPRIS shuffles songs only.
    ///
    /// - Parameter mode: `.off` or `.songs`.
    /// - Throws: ``BackbeatError/Code/unsupportedByPlayer`` for `.albums`; ``BackbeatError`` when the player refuses or is gone.
    public func setShuffleMode(_ mode: MusicPlayer.ShuffleMode) throws {
        let player = try resolve("setShuffleMode")
        guard mode != .albums else {
            throw BackbeatError(
                .unsupportedByPlayer, operation: "system music player setShuffleMode",
                reason: "MPRIS players shuffle songs, not albums")
        }
        guard player.shuffle != nil else {
            throw BackbeatError(
                .unsupportedByPlayer, operation: "system music player setShuffleMode",
                reason: "\(player.name) has no Shuffle")
        }
        try mapped("setShuffleMode", player) {
            try client.setProperty("Shuffle", .bool(mode == .songs), on: player.busName)
        }
    }

    /// Sets the player's volume (clamped below at 0; NaN ignored).
    ///
    /// - Parameter volume: The level, 0...1 (1 is the player's full level; some players go above).
    /// - Throws: ``BackbeatError`` when the player refuses or is gone.
    public func setVolume(_ volume: Float) throws {
        guard !volume.isNaN else { return }
        let player = try resolve("setVolume")
        guard player.volume != nil else {
            throw BackbeatError(
                .unsupportedByPlayer, operation: "system music player setVolume", reason: "\(player.name) has no Volume"
            )
        }
        try mapped("setVolume", player) {
            try client.setProperty("Volume", .double(Double(max(0, volume))), on: player.busName)
        }
    }

    // MARK: Queue

    /// Replaces the player's queue with the files of `items` (see ``setQueue(urls:)``).
    ///
    /// - Parameter items: Items backed by files, in order.
    /// - Throws: as ``setQueue(urls:)``; ``BackbeatError/Code/invalidArgument``,
    ///   before the player is asked anything, for an item whose asset is bytes
    ///   in memory, a game's own byte source or an archive entry: another
    ///   program cannot open those.
    public func setQueue(items: [any MusicItem]) throws {
        let urls = try items.map { item in
            let asset = item.asset
            guard asset.readsURL else {
                let origin =
                    asset.archiveEntry.map { "an entry of the archive \($0.archive.path)" }
                    ?? "bytes inside the game (\(asset.url.absoluteString))"
                throw BackbeatError(
                    .invalidArgument, operation: "system music player setQueue",
                    reason: "\"\(item.title)\" is \(origin), which another player cannot open")
            }
            return asset.url
        }
        try setQueue(urls: urls)
    }

    /// Replaces the player's queue with `urls`, the first one current.
    ///
    /// A player with a TrackList gets its tracks replaced; a player without one
    /// can only open a single URI (OpenUri), so a longer queue throws
    /// ``BackbeatError/Code/unsupportedByPlayer``, as does a URI scheme other
    /// than `file` that the player does not list. An empty queue is an
    /// invalid argument.
    ///
    /// - Parameter urls: The tracks, in order, at least one.
    /// - Throws: ``BackbeatError`` as above, or when the player refuses or is gone.
    public func setQueue(urls: [URL]) throws {
        guard !urls.isEmpty else {
            throw BackbeatError(
                .invalidArgument, operation: "system music player setQueue", reason: "the queue is empty")
        }
        let player = try resolve("setQueue")
        try mapped("setQueue", player) {
            let schemes = try? client.call(
                DBusNames.properties, "Get", on: player.busName,
                arguments: [.string(DBusNames.mprisRoot), .string("SupportedUriSchemes")]
            ).first?.strings
            // Local files are always offered: players open them without listing `file` (mpv does).
            if let schemes, let bad = urls.first(where: { !$0.isFileURL && !schemes.contains($0.scheme ?? "") }) {
                throw BackbeatError(
                    .unsupportedByPlayer, operation: "system music player setQueue", url: bad,
                    reason: "\(player.name) opens only \(schemes.joined(separator: ", ")) URIs")
            }
            if player.hasTrackList {
                let tracks =
                    try client.call(
                        DBusNames.properties, "Get", on: player.busName,
                        arguments: [.string(DBusNames.mprisTrackList), .string("Tracks")]
                    ).first?.strings ?? []
                for track in tracks {
                    _ = try client.call(
                        DBusNames.mprisTrackList, "RemoveTrack", on: player.busName, arguments: [.objectPath(track)])
                }
                // NoTrack inserts first: adding from the last URL back leaves them in order, the first current.
                for (i, url) in urls.enumerated().reversed() {
                    _ = try client.call(
                        DBusNames.mprisTrackList, "AddTrack", on: player.busName,
                        arguments: [
                            .string(url.absoluteString),
                            .objectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack"), .bool(i == 0),
                        ])
                }
            } else if urls.count == 1 {
                try client.send("OpenUri", to: player.busName, arguments: [.string(urls[0].absoluteString)])
            } else {
                throw BackbeatError(
                    .unsupportedByPlayer, operation: "system music player setQueue",
                    reason: "\(player.name) has no TrackList: it opens one URI, not a queue of \(urls.count)")
            }
        }
    }

    // MARK: Notifications

    /// Starts generating notifications (calls nest: each needs an ``endGeneratingPlaybackNotifications()``).
    public func beginGeneratingPlaybackNotifications() { state.withLockedValue { $0.notifying += 1 } }

    /// Stops generating notifications once every begin has its end.
    public func endGeneratingPlaybackNotifications() {
        state.withLockedValue { $0.notifying = max(0, $0.notifying - 1) }
    }

    /// Calls `handler` with each event, in order, on a queue of the desktop's own,
    /// until the returned token is cancelled.
    ///
    /// - Parameter handler: Called with each ``Event``.
    /// - Returns: A token; cancel it (or let it go) to stop the calls.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (Event) -> Void) -> ObservationToken {
        broadcast.observe(handler)
    }

    /// A new stream of events from now on; it ends when the player is released.
    /// It keeps the newest 1,024 events its consumer has not read.
    public func events() -> AsyncStream<Event> {
        broadcast.events()
    }

    /// Waits until every change the bus reported so far has been turned into notifications.
    func flushNotifications() { client.flushDeliveries() }

    // MARK: Internals

    static func playbackState(of player: MPRISPlayerState?) -> MusicPlayer.PlaybackState {
        switch player?.playbackStatus {
        case "Playing": .playing
        case "Paused": .paused
        default: .stopped
        }
    }

    private func snapshot(of player: MPRISPlayerState?) -> Snapshot {
        Snapshot(
            state: Self.playbackState(of: player), item: player?.nowPlaying, volume: player?.volume.map { Float($0) })
    }

    /// A change on the bus (on the client's delivery queue, in order): notify what it changed.
    private func update() {
        let now = snapshot(of: target())
        let events = state.withLockedValue { s -> [Event] in
            defer { s.last = now }
            guard s.notifying > 0, now != s.last else { return [] }
            var out: [Event] = []
            if now.state != s.last.state { out.append(.playbackStateDidChange(now.state)) }
            if now.item != s.last.item { out.append(.nowPlayingItemDidChange(now.item)) }
            if let volume = now.volume, now.volume != s.last.volume { out.append(.volumeDidChange(volume)) }
            return out
        }
        for event in events { broadcast.send(event) }
    }

    private func send(_ method: String, _ operation: String) throws {
        let player = try resolve(operation)
        try mapped(operation, player) { try client.send(method, to: player.busName) }
    }

    /// Runs a call to `player`, turning the bus's errors into the player's:
    /// a player that is gone is ``BackbeatError/Code/playerNotFound``, a
    /// method it lacks ``BackbeatError/Code/unsupportedByPlayer``.
    @discardableResult
    private func mapped<T>(_ operation: String, _ player: MPRISPlayerState, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as BackbeatError where error.code == .desktopCallFailed {
            let reason = error.reason ?? ""
            let what = "system music player \(operation)"
            if ["ServiceUnknown", "NameHasNoOwner", "NoReply", "Disconnected"].contains(where: reason.contains) {
                throw BackbeatError(
                    .playerNotFound, operation: what, reason: "\(player.name) left the desktop bus (\(reason))")
            }
            if ["UnknownMethod", "NotSupported", "UnknownProperty", "PropertyReadOnly"].contains(where: reason.contains)
            {
                throw BackbeatError(.unsupportedByPlayer, operation: what, reason: "\(player.name): \(reason)")
            }
            throw error
        }
    }
}

extension SystemMusicPlayer: MusicPlaying {}
