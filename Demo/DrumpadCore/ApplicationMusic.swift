import Backbeat
import BackbeatLibrary
import Foundation

/// The demo's music on the engine's application music player
/// (``MusicPlayer/application(for:)``): the queue, transport, modes, the
/// now-playing item, metering for the level bar and the quit fade.
public final class ApplicationMusic: Sendable {
    /// The player.
    public let player: MusicPlayer
    private let library: MediaLibrary?
    private let sampleRate: Int

    /// The application player of `engine`, metering, with notifications on;
    /// plays and skips are recorded in `library`.
    /// - Throws: the player's ``BackbeatError`` when it cannot be made.
    public init(engine: AudioEngine, library: MediaLibrary?) throws {
        player = try MusicPlayer.application(for: engine)
        player.isMeteringEnabled = true
        player.beginGeneratingPlaybackNotifications()
        self.library = library
        sampleRate = engine.sampleRate
    }

    public func setQueue(_ items: [MediaItem]) throws { player.setQueue(items: items, library: library) }

    public func play() throws {
        try player.prepareToPlay()  // throws for an empty queue; play() alone would do nothing, silently
        player.play()
    }

    public func pause() throws { player.pause() }
    public func stop() throws { player.stop() }
    public func skipToNextItem() throws { player.skipToNextItem() }
    public func skipToPreviousItem() throws { player.skipToPreviousItem() }

    public func seek(to time: MediaTime) throws {
        guard let item = player.nowPlayingItem else { throw DrumpadError("the queue is empty") }
        guard time < item.playbackDuration else {
            throw DrumpadError(
                "\(DrumpadCommand.clock(time)) is beyond the end of \"\(item.title)\" (\(item.playbackDuration.formatted))"
            )
        }
        player.seek(to: time)
    }

    public func setRepeatMode(_ mode: DrumpadCommand.RepeatMode) throws {
        player.repeatMode = mode
    }

    public func setShuffleMode(_ mode: DrumpadCommand.ShuffleMode) throws {
        player.shuffleMode = mode
    }

    public func playbackState() throws -> DrumpadPlaybackState {
        switch player.playbackState {
        case .stopped: .stopped
        case .playing: .playing
        case .paused: .paused
        case .interrupted: .interrupted
        case .seekingForward, .seekingBackward: .seeking
        }
    }

    public func nowPlayingItem() throws -> MediaItem? { player.nowPlayingItem as? MediaItem }

    public func currentPlaybackTime() throws -> MediaTime {
        // The player counts engine-rate frames, at that timescale.
        player.currentPlaybackTime
    }

    public func level() -> Float? {
        player.updateMeters()
        // Paused, the meters still hold the last buffer; the demo's meter shows what is heard: nothing.
        guard [.playing, .seekingForward, .seekingBackward].contains(player.playbackState) else { return 0 }
        let decibels = max(player.peakPower(forChannel: 0), player.peakPower(forChannel: 1))
        return decibels <= -160 ? 0 : Float(pow(10, Double(decibels) / 20))
    }

    public func fadeOut(duration: MediaTime) { player.fadeOut(duration: duration) }

    public func onChange(_ handler: @escaping @Sendable () -> Void) {
        player.observe { _ in handler() }
    }
}
