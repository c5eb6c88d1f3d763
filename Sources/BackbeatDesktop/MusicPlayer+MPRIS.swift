import BackbeatEngine
import BackbeatMedia
import BackbeatMusic
import BackbeatSupport
import Dispatch
import Foundation

extension MusicPlayer {
    /// The application player as the MPRIS server sees it: its state, cached,
    /// and the desktop's commands carried out on a queue of its own.
    ///
    /// The server asks for state and hands over commands on the D-Bus
    /// connection's thread, where the engine's pending deliveries must not run
    /// (a game's notification handler might call the desktop and wait for the
    /// thread it is on). So the state is refreshed here, whenever the player
    /// notifies and after each command, and the server reads the copy. The
    /// position it shows is the one at the last refresh.
    ///
    /// Artwork is written to a folder of the publication's own, one file per
    /// item, so the desktop can show it (`mpris:artUrl`); ``close()`` removes it.
    final class MPRISAdapter: MPRISPublishable {
        let player: MusicPlayer
        let artworkFolder: URL
        private let work = DispatchQueue(label: "backbeat.mpris.application-player")
        private struct State {
            var published = MPRISPublishedState()
            var artwork: [UInt64: URL?] = [:]
            var isOpen = true
        }
        private let state = LockedValueBox(State())
        private let changes = EventBroadcast<Void>()
        private let playerObservation = LockedValueBox<ObservationToken?>(nil)

        init(player: MusicPlayer) throws {
            self.player = player
            artworkFolder = FileManager.default.temporaryDirectory
                .appendingPathComponent("backbeat-mpris-\(getpid())-\(UUID().uuidString)", isDirectory: true)
            do {
                try FileManager.default.createDirectory(at: artworkFolder, withIntermediateDirectories: true)
            } catch {
                throw BackbeatError(
                    .writeFailed, operation: "publish the music player", url: artworkFolder,
                    reason: "cannot make the artwork folder: \(error.localizedDescription)")
            }
            player.beginGeneratingPlaybackNotifications()
            let token = player.observe { [weak self] _ in self?.refreshLater() }
            playerObservation.withLockedValue { $0 = token }
            refresh()
        }

        var mprisState: MPRISPublishedState { state.withLockedValue { $0.published } }

        func mprisObserve(_ changed: @escaping @Sendable () -> Void) -> ObservationToken {
            changes.observe { changed() }
        }

        func mprisControl(_ command: MPRISCommand) {
            work.async { [self] in
                guard state.withLockedValue({ $0.isOpen }) else { return }
                switch command {
                case .play: player.play()
                case .pause: player.pause()
                case .playPause:
                    switch player.playbackState {
                    case .playing, .seekingForward, .seekingBackward: player.pause()
                    default: player.play()
                    }
                case .stop: player.stop()
                case .next: player.skipToNextItem()
                case .previous: player.skipToPreviousItem()
                case .seek(let offset): seek(byMicroseconds: offset)
                case .setPosition(let trackID, let position): setPosition(trackID: trackID, microseconds: position)
                case .setRepeatMode(let mode): player.repeatMode = mode
                case .setShuffle(let on): player.shuffleMode = on ? .songs : .off
                case .setVolume(let volume): player.volume = Float(min(1, max(0, volume)))
                }
                refresh()
            }
        }

        /// The MPRIS track ID of an item (`mpris:trackid`).
        static func trackID(of item: any MusicItem) -> String { "/org/backbeat/item/\(item.persistentID)" }

        /// The item's length, when it is known (a length of zero is unknown).
        private static func length(of item: any MusicItem) -> MediaTime? {
            item.playbackDuration > .zero ? item.playbackDuration : nil
        }

        /// MPRIS `Seek`: the result is clamped to zero; beyond the item's
        /// length it acts as Next, as the specification says. The sum
        /// saturates, so Int64.max and Int64.min offsets cannot trap.
        private func seek(byMicroseconds offset: Int64) {
            guard let item = player.nowPlayingItem else { return }
            let target = player.currentPlaybackTime + MediaTime(value: offset, timescale: 1_000_000)
            if let length = Self.length(of: item), target > length {
                player.skipToNextItem()
            } else {
                player.seek(to: max(.zero, target))
            }
        }

        /// MPRIS `SetPosition`: ignored unless `trackID` is the now-playing
        /// item's and the position lies within 0...length, as the
        /// specification says (a stale ID comes from a client that has not
        /// seen the track change yet).
        private func setPosition(trackID: String, microseconds: Int64) {
            guard let item = player.nowPlayingItem, trackID == Self.trackID(of: item), microseconds >= 0 else {
                return
            }
            let target = MediaTime(value: microseconds, timescale: 1_000_000)
            if let length = Self.length(of: item), target > length { return }
            player.seek(to: target)
        }

        /// Stops following the player and removes the artwork folder.
        func close() {
            let wasOpen = state.withLockedValue { s in
                defer { s.isOpen = false }
                return s.isOpen
            }
            guard wasOpen else { return }
            playerObservation.withLockedValue { $0 }?.cancel()
            player.endGeneratingPlaybackNotifications()
            work.sync {}
            try? FileManager.default.removeItem(at: artworkFolder)
        }

        /// Waits until every command and refresh asked for so far is done.
        func flush() { work.sync {} }

        private func refreshLater() { work.async { [weak self] in self?.refresh() } }

        private func refresh() {
            guard state.withLockedValue({ $0.isOpen }) else { return }
            let item = player.nowPlayingItem
            var published = MPRISPublishedState()
            published.status =
                switch player.playbackState {
                case .playing, .seekingForward, .seekingBackward: .playing
                case .paused, .interrupted: .paused
                case .stopped: .stopped
                }
            published.nowPlaying = item.map { item in
                NowPlayingInfo(
                    trackID: Self.trackID(of: item), title: item.title, artist: item.artist,
                    albumTitle: item.albumTitle, playbackDuration: item.playbackDuration,
                    artworkURL: artworkFile(for: item), assetURL: item.asset.desktopURL)
            }
            published.queueIndex = player.indexOfNowPlayingItem ?? 0
            published.repeatMode = player.repeatMode
            published.isShuffling = player.shuffleMode != .off
            published.position = player.currentPlaybackTime.converted(to: 1_000_000).value
            published.volume = Double(player.volume)
            published.canGoNext = item != nil
            published.canGoPrevious = item != nil
            let changed = state.withLockedValue { s -> Bool in
                guard s.isOpen, s.published != published else { return false }
                s.published = published
                return true
            }
            if changed { changes.send(()) }
        }

        /// The item's artwork as a file in the folder, written once; nil without artwork.
        private func artworkFile(for item: any MusicItem) -> URL? {
            if let known = state.withLockedValue({ $0.artwork[item.persistentID] }) { return known }
            var file: URL?
            if let data = item.artworkImageData() {
                let isJPEG = data.starts(with: [0xFF, 0xD8])
                let url = artworkFolder.appendingPathComponent("\(item.persistentID).\(isJPEG ? "jpg" : "png")")
                if (try? data.write(to: url, options: .atomic)) != nil { file = url }
            }
            state.withLockedValue { $0.artwork[item.persistentID] = .some(file) }
            return file
        }
    }
}
