import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatMusic

extension Replayer {
    /// Applies a record of ``CaptureKind/musicRange``: makes the players and
    /// items the game made, and calls them as the game did.
    ///
    /// - Parameter record: The record.
    /// - Throws: When its payload does not decode, a music file is missing,
    ///   or the call it replays fails.
    func applyMusic(_ record: CaptureRecord) throws {
        var decoder = record.decoder
        do {
            switch record.kind {
            case .musicItemDeclare:
                let id = try decoder.uint32()
                objects[id] = PlayerItem(asset: try musicAsset(&decoder))
            case .queuePlayerDeclare:
                let id = try decoder.uint32()
                let count = try decoder.count(maximum: 1 << 20)
                var items: [PlayerItem] = []
                for _ in 0..<count { items.append(try object(try decoder.uint32(), as: PlayerItem.self, in: record)) }
                objects[id] = try QueuePlayer(engine: engine, items: items)
            case .musicPlayerDeclare:
                objects[try decoder.uint32()] = try MusicPlayer.application(for: engine)
            case .adaptivePlayerDeclare:
                let id = try decoder.uint32()
                objects[id] = try AdaptiveMusicPlayer(engine: engine, sections: try sections(&decoder))
            case .musicPlayerReleased:
                // Let go as the game let go: its streams close at the engine's next entry, as they did.
                let id = try decoder.uint32()
                guard objects[id] is any EngineMusicPlaying else {
                    throw CaptureFormatError.malformed("no music player with capture id \(id)")
                }
                objects[id] = nil
                note("music player released")
            default:
                try applyPlayer(&decoder, record)
            }
        } catch let error as CaptureFormatError {
            throw damaged(record, error)
        }
    }

    /// An asset of a record, made again (a missing file throws one line naming it).
    private func musicAsset(_ decoder: inout CaptureDecoder) throws -> AudioAsset {
        try MusicCaptureValues.asset(from: &decoder).resolve(warn: warn)
    }

    private func sections(_ decoder: inout CaptureDecoder) throws -> [MusicSection] {
        var sections: [MusicSection] = []
        for _ in 0..<(try decoder.count(maximum: 4_096)) {
            let name = try decoder.string()
            let tempo = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                (try d.finiteDouble(), try d.int(in: 1...1_024), try d.int(in: 1...1_024))
            }
            var stems: [MusicStem] = []
            for _ in 0..<(try decoder.count(maximum: 4_096)) {
                let layer = try decoder.string()
                stems.append(MusicStem(layer: layer, asset: try musicAsset(&decoder)))
            }
            let map = try tempo.map { try TempoMap(beatsPerMinute: $0.0, beatsPerBar: $0.1, beatUnit: $0.2) }
            sections.append(MusicSection(name: name, stems: stems, tempo: map))
        }
        return sections
    }

    private func applyPlayer(_ decoder: inout CaptureDecoder, _ record: CaptureRecord) throws {
        let id = try decoder.uint32()
        guard let player = objects[id] else {
            throw damaged(record, CaptureFormatError.malformed("no music player with capture id \(id)"))
        }
        if let queue = player as? QueuePlayer {
            try applyQueue(queue, &decoder, record)
        } else if let music = player as? MusicPlayer {
            try applyMusicPlayer(music, &decoder, record)
        } else if let adaptive = player as? AdaptiveMusicPlayer {
            try applyAdaptive(adaptive, &decoder, record)
        } else {
            throw damaged(record, CaptureFormatError.malformed("capture id \(id) is not a music player"))
        }
    }

    private func applyQueue(_ player: QueuePlayer, _ decoder: inout CaptureDecoder, _ record: CaptureRecord) throws {
        switch record.kind {
        case .queueInsert:
            let item = try object(try decoder.uint32(), as: PlayerItem.self, in: record)
            let afterID = try decoder.uint32()
            try player.insert(item, after: afterID == 0 ? nil : try object(afterID, as: PlayerItem.self, in: record))
        case .queueRemove: player.remove(try object(try decoder.uint32(), as: PlayerItem.self, in: record))
        case .queueRemoveAll: player.removeAllItems()
        case .musicSkipNext:
            player.skipToNextItem()
            note("music skip")
        case .queueActionAtItemEnd:
            switch try decoder.uint64() {
            case 0: player.actionAtItemEnd = .advance
            case 1: player.actionAtItemEnd = .pause
            case 2: player.actionAtItemEnd = .none
            case let other: throw CaptureFormatError.malformed("action at item end \(other)")
            }
        case .queueLoops: player.loopsQueue = try decoder.bool()
        case .musicPlay:
            player.play()
            note("music play \(player.currentItem?.url.lastPathComponent ?? "(empty queue)")")
        case .musicPause:
            player.pause()
            note("music pause")
        case .musicSeek:
            player.seek(to: try EngineCaptureValues.time(from: &decoder))
            note("music seek")
        case .queueMute: player.isMuted = try decoder.bool()
        case .queueCrossfade: try player.setCrossfadeDuration(try EngineCaptureValues.time(from: &decoder))
        default: try applyLevel(player, &decoder, record, noting: .musicFade)
        }
    }

    private func applyMusicPlayer(
        _ player: MusicPlayer, _ decoder: inout CaptureDecoder, _ record: CaptureRecord
    ) throws {
        switch record.kind {
        case .musicSetQueue:
            var items: [any MusicItem] = []
            for _ in 0..<(try decoder.count(maximum: 1 << 20)) {
                let persistentID = try decoder.uint64()
                let title = try decoder.string()
                let artist = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                    try d.string()
                }
                let album = try decoder.optional { (d: inout CaptureDecoder) throws(CaptureFormatError) in
                    try d.string()
                }
                let duration = try EngineCaptureValues.time(from: &decoder)
                items.append(
                    CapturedMusicItem(
                        asset: try musicAsset(&decoder), persistentID: persistentID, title: title, artist: artist,
                        albumTitle: album, playbackDuration: duration))
            }
            player.setQueue(items: items)
            note("music queue of \(items.count)")
        case .musicRepeatMode:
            let raw = try decoder.string(maximumBytes: 64)
            guard let mode = MusicPlayer.RepeatMode(rawValue: raw) else {
                throw CaptureFormatError.malformed("repeat mode \(raw)")
            }
            player.repeatMode = mode
        case .musicShuffleMode:
            let raw = try decoder.string(maximumBytes: 64)
            guard let mode = MusicPlayer.ShuffleMode(rawValue: raw) else {
                throw CaptureFormatError.malformed("shuffle mode \(raw)")
            }
            player.shuffleMode = mode
        case .musicSeedShuffle: player.seedShuffle(try decoder.uint64())
        case .musicPrepare: try player.prepareToPlay()
        case .musicPlay:
            player.play()
            note("music play \(player.nowPlayingItem?.title ?? "(empty queue)")")
        case .musicPause:
            player.pause()
            note("music pause")
        case .musicStop:
            player.stop()
            note("music stop")
        case .musicSeek:
            player.seek(to: try EngineCaptureValues.time(from: &decoder))
            note("music seek")
        case .musicBeginSeeking:
            if try decoder.bool() { player.beginSeekingForward() } else { player.beginSeekingBackward() }
        case .musicEndSeeking: player.endSeeking()
        case .musicSkipNext:
            player.skipToNextItem()
            note("music next")
        case .musicSkipPrevious:
            player.skipToPreviousItem()
            note("music previous")
        case .musicSkipToBeginning: player.skipToBeginning()
        default: try applyLevel(player, &decoder, record, noting: .musicFade)
        }
    }

    private func applyAdaptive(
        _ player: AdaptiveMusicPlayer, _ decoder: inout CaptureDecoder, _ record: CaptureRecord
    ) throws {
        func quantization() throws -> MusicQuantization {
            let raw = try decoder.string(maximumBytes: 64)
            guard let value = MusicQuantization(rawValue: raw) else {
                throw CaptureFormatError.malformed("quantization \(raw)")
            }
            return value
        }
        switch record.kind {
        case .adaptiveTransition:
            let section = try decoder.string()
            let quantized = try quantization()
            let style: MusicTransitionStyle
            switch try decoder.uint64() {
            case 0: style = .cut
            case 1: style = .crossfade(try EngineCaptureValues.time(from: &decoder))
            case let other: throw CaptureFormatError.malformed("transition style \(other)")
            }
            let segment = try decoder.bool() ? try musicAsset(&decoder) : nil
            try player.transition(to: section, quantization: quantized, style: style, via: segment)
            note("section \(section)")
        case .adaptiveStinger:
            let asset = try musicAsset(&decoder)
            try player.playStinger(asset, quantization: try quantization())
            note("stinger \(asset.url.lastPathComponent)")
        case .adaptiveResume: player.resume()
        case .adaptiveLayerGain:
            let layer = try decoder.string()
            let gain = try decoder.float()
            player.setLayerGain(layer, to: gain, duration: try EngineCaptureValues.time(from: &decoder))
        case .adaptiveBindLayer:
            let layer = try decoder.string()
            let parameter = try object(try decoder.uint32(), as: GameParameter.self, in: record)
            player.bindLayer(layer, to: parameter, curve: try EngineCaptureValues.parameterCurve(from: &decoder))
        case .adaptiveBindVolume:
            let parameter = try object(try decoder.uint32(), as: GameParameter.self, in: record)
            player.bindVolume(to: parameter, curve: try EngineCaptureValues.parameterCurve(from: &decoder))
        case .musicPause:
            player.pause()
            note("music pause")
        case .musicStop:
            player.stop()
            note("music stop")
        case .musicSeek: player.seek(to: try EngineCaptureValues.time(from: &decoder))
        default: try applyLevel(player, &decoder, record, noting: .musicFadeOut)
        }
    }

    /// Applies a volume, fade or fade-out record, alike for every kind of
    /// player, and skips any other kind as unknown.
    ///
    /// - Parameters:
    ///   - player: The player the record names.
    ///   - decoder: The record's payload, after the player's capture id.
    ///   - record: The record.
    ///   - noting: Which of the fade kinds the `--summary` timeline counts for
    ///     this kind of player (the adaptive player has always counted its
    ///     fade-outs, the others their fades).
    private func applyLevel(
        _ player: some MusicLevelReplaying, _ decoder: inout CaptureDecoder, _ record: CaptureRecord,
        noting: CaptureKind
    ) throws {
        switch record.kind {
        case .musicVolume: player.volume = try decoder.float()
        case .musicFade:
            let (target, duration) = (try decoder.float(), try EngineCaptureValues.time(from: &decoder))
            player.fade(to: target, duration: duration, curve: try EngineCaptureValues.fadeCurve(from: &decoder))
        case .musicFadeOut: player.fadeOut(duration: try EngineCaptureValues.time(from: &decoder))
        default: return skipUnknown(record)
        }
        if record.kind == noting { note(noting == .musicFade ? "music fade" : "music fade out") }
    }
}
