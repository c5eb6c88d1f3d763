import Backbeat
import BackbeatLibrary

extension Drumpad {
    /// The music commands: each prints its result, or one line saying why it could not be done.
    func performMusic(_ command: DrumpadCommand) {
        let word = command.description.split(separator: " ").first.map(String.init) ?? "music"
        do {
            let music = try availableMusic()
            switch command {
            case .play: try music.play()
            case .pause: try music.pause()
            case .toggle: try music.playbackState() == .playing ? music.pause() : music.play()
            case .next: try music.skipToNextItem()
            case .previous: try music.skipToPreviousItem()
            case let .seek(time): try music.seek(to: time)
            case .stop: try music.stop()
            case let .repeatMode(mode):
                try music.setRepeatMode(mode)
                report("repeat: \(mode.rawValue)")
            case let .shuffle(mode):
                try music.setShuffleMode(mode)
                report("shuffle: \(mode.rawValue)")
            case let .random(genre): try playRandom(genre: genre)
            case .pick: try openPicker()
            case .nowPlaying: try showNowPlaying()
            default: break
            }
        } catch {
            report("\(word): \(error)")
        }
    }

    /// The music player, or the error every music command reports without one.
    func availableMusic() throws -> ApplicationMusic {
        guard let music else {
            throw DrumpadError("music is not available: no music player could be made on this engine")
        }
        return music
    }

    /// `random [GENRE]`: a random song of the library (of one genre), then the
    /// rest of the library's songs after it, so `next` goes on.
    private func playRandom(genre: String?) throws {
        guard let library else { throw DrumpadError("there is no music library") }
        var query = MediaQuery.songs(in: library)
        if let genre { try query.addFilterPredicate(MediaPropertyPredicate(value: genre, property: .genre)) }
        let candidates = try query.items
        guard !candidates.isEmpty else {
            throw DrumpadError(genre.map { "no song in the genre \"\($0)\"" } ?? "the library has no songs")
        }
        let chosen = candidates[generator.below(candidates.count)]
        report(
            "random: \"\(chosen.title)\" by \(chosen.artist ?? "Unknown Artist")"
                + (chosen.genre.map { " (\($0))" } ?? ""))
        let songs = try MediaQuery.songs(in: library).items
        let start = songs.firstIndex(of: chosen) ?? 0
        let music = try availableMusic()
        try music.setQueue(Array(songs[start...] + songs[..<start]))
        try music.play()
    }

    /// `now`: title, album, artist, state and position, tempo and artwork, or that nothing is playing.
    private func showNowPlaying() throws {
        let music = try availableMusic()
        guard let item = try music.nowPlayingItem() else {
            report("now: nothing is playing")
            return
        }
        let artwork = item.artwork.map { "artwork \($0.bounds)" } ?? "no artwork (the noartwork placeholder stands in)"
        let state = (try? music.playbackState()).map { $0.rawValue } ?? "unknown"
        let position = (try? music.currentPlaybackTime()).map { DrumpadCommand.clock($0) } ?? "0:00"
        report(
            "now: \"\(item.title)\" from \"\(item.albumTitle ?? "Unknown Album")\" by \(item.artist ?? "Unknown Artist"), "
                + "\(state) at \(position) of \(item.playbackDuration.formatted), \(tempo(of: item)) BPM, \(artwork)")
    }
}
