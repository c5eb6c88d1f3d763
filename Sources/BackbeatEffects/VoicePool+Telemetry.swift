import BackbeatCapture
import BackbeatEngine
import BackbeatTelemetry

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension VoicePool {
    /// One live voice as a snapshot's selection sees it: its audibility and
    /// its row of the table (which also breaks ties).
    struct TelemetryRow {
        var gain: Float
        var row: Int32
    }

    // MARK: What a monitor sees

    /// Adds every live voice to `builder`: the loudest
    /// ``TelemetryProtocol/maximumListedVoices`` listed, loudest first (ties
    /// by row), all of them counted by state; the sources the pool holds; and
    /// each playing voice's level on its bus (``addLevelsLocked(to:listener:)``).
    ///
    /// The awake voices are visited one by one; the dormant ones (thousands,
    /// in a big world) are ranked from the table's flat arrays alone, by
    /// their level and the listener's distance curve, each offered to a
    /// bounded selection (``TelemetrySelection``) that keeps the loudest, and
    /// only the dormant voices it kept are looked at (their exact gain, with
    /// their own curve if they have one): a snapshot of 10,000 voices sorts
    /// 256, touches a few hundred, and allocates no array of them all.
    ///
    /// - Parameter builder: the snapshot under construction.
    func contributeLocked(to builder: TelemetrySnapshotBuilder) {
        guard let engine else { return }
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let listener = engine.listenerLocked
        var counts = builder.snapshot.voiceCounts
        // Taken out while in use, so that offering to it copies nothing.
        var selection = telemetrySelection
        telemetrySelection = TelemetrySelection()
        let capacity = TelemetryProtocol.maximumListedVoices
        selection.reset(capacity: capacity)
        // Rows from here up are offered first (see `telemetryFloor`); how many were.
        let floor = telemetryFloor
        var atFloor = 0
        var offered = 0
        for voice in voices where !voice.record.isDormant && voice.phase != .finished && voice.record.slot >= 0 {
            let gain = telemetryGain(of: voice, row: voice.record.slot, listener: listener)
            switch telemetryState(of: voice, gain: gain).state {
            case .playing: counts.playing += 1
            case .virtual: counts.virtual += 1
            case .dormant: counts.dormant += 1
            case .stopping: counts.stopping += 1
            }
            selection.offer(TelemetryRow(gain: gain, row: Int32(truncatingIfNeeded: voice.record.slot)))
            offered += 1
            if gain >= floor { atFloor += 1 }
        }
        let awake = offered
        if dormantCount > 0 {
            counts.dormant += dormantCount
            table.sleepingGains(from: listener.position, curve: listener.distanceParameters, into: &telemetryGains)
            let (sleeping, passed) = table.offerSleepingRows(gains: telemetryGains, from: floor, to: &selection)
            offered += sleeping
            atFloor += passed
            // Fewer rows at the floor than the listing holds: a row under it may belong.
            if atFloor < capacity && passed < sleeping {
                table.offerSleepingRows(gains: telemetryGains, from: floor, below: true, to: &selection)
            }
        }
        let anyDormant = offered > awake
        selection.sortLoudestFirst { row in
            // The dormant voices kept: their exact gain (a voice's own curve), then the order again.
            guard anyDormant, let voice = table[Int(row.row)], voice.record.isDormant else { return nil }
            return telemetryGain(of: voice, row: Int(row.row), listener: listener)
        }
        let listed = selection.count
        // The next snapshot offers the sleeping rows from 6 dB under this one's
        // quietest listed voice first: the rest can be listed only if fewer than
        // `capacity` voices are at that floor, and then they are offered too.
        telemetryFloor = listed >= capacity ? max(0, selection[listed - 1].gain * 0.5) : 0
        counts.unlisted += offered - listed
        builder.snapshot.voiceCounts = counts
        builder.snapshot.voices.reserveCapacity(builder.snapshot.voices.count + listed)
        for i in 0..<listed {
            let entry = selection[i]
            guard let voice = table[Int(entry.row)] else { continue }
            builder.snapshot.voices.append(telemetryVoice(voice, row: Int(entry.row), gain: entry.gain))
        }
        telemetrySelection = selection
        builder.snapshot.engine.sourcesInUse += sourceCount - free.count
        addLevelsLocked(to: builder, listener: listener)
    }

    /// What the pool reckons the listener hears `voice` at (volume, buses,
    /// distance, cone, and its occlusion and filter's broadband gain), as a
    /// gain; a dormant voice's point is read from its row.
    func telemetryGain(of voice: Voice, row: Int, listener: Listener) -> Float {
        let level = voice.gain * (voice.bus?.stepGain ?? 1)
        var gain: Float
        if voice.record.isDormant {
            gain = placedGain(level, of: voice, at: table.point(at: row), listener: listener)
        } else if let p = voice.storedPosition, voice.renderingValue != .stereoPassThrough {
            gain = placedGain(level, of: voice, at: p, listener: listener)
        } else {
            gain = level
        }
        gain *= voice.directGain
        return gain
    }

    /// The protocol's state for `voice` and why, when it is not plainly playing.
    ///
    /// A voice without a source is `dormant` when it is placed out of earshot
    /// (asleep in the table, or still awake within the audibility margin),
    /// and `virtual` otherwise: it would be heard but has no source (the
    /// voice limit), or waits for its load, its start or a hand-off.
    func telemetryState(of voice: Voice, gain: Float) -> (state: TelemetrySnapshot.VoiceState, reason: String?) {
        if voice.record.isDormant { return (.dormant, "outOfEarshot") }
        switch voice.phase {
        case .playing:
            return voice.record.source == nil ? (.virtual, "noSource") : (.playing, nil)
        case .pausing, .paused:
            return (.playing, "paused")
        case .stopping(_, let thenVirtual):
            return thenVirtual ? (.virtual, "fadingOut") : (.stopping, "stopped")
        case .virtual:
            if voice.isPlacedInWorld && gain < thresholdGain { return (.dormant, "outOfEarshot") }
            if voice.userPaused || (voice.bus?.stepPaused ?? false) { return (.virtual, "paused") }
            return (.virtual, gain < thresholdGain ? "inaudible" : "voiceLimit")
        case .waitingForLoad:
            return (.virtual, "loading")
        case .scheduled:
            return (.virtual, "scheduled")
        case .waitingForSource:
            return (.virtual, "waitingForSource")
        case .finished:
            return (.stopping, "finished")
        }
    }

    /// The snapshot's entry for one voice.
    func telemetryVoice(_ voice: Voice, row: Int, gain: Float) -> TelemetrySnapshot.Voice {
        let (state, reason) = telemetryState(of: voice, gain: gain)
        var point: TelemetrySnapshot.Voice.Point?
        // Dormant first: a dormant voice's `isPlacedInWorld` reads its point
        // through the pool's weak reference, which was a tenth of a snapshot.
        if voice.record.isDormant || voice.isPlacedInWorld {
            let p = voice.record.isDormant ? table.point(at: row) : voice.storedPosition ?? .zero
            point = .init(x: Double(p.x), y: Double(p.y), z: Double(p.z))
        }
        return TelemetrySnapshot.Voice(
            id: voice.id.raw, name: voice.telemetryName, bus: voice.bus?.name ?? "effects", state: state,
            reason: reason, gainDB: Self.decibels(gain, of: voice), point: point)
    }

    /// ``decibels(_:)`` of `gain`, taken from what `voice` kept of the last
    /// snapshot when its gain is the same, bit for bit.
    ///
    /// - Parameters:
    ///   - gain: the voice's gain now.
    ///   - voice: the voice, which keeps the gain and its dB for the next snapshot.
    static func decibels(_ gain: Float, of voice: Voice) -> Double {
        if voice.telemetryDecibels.gain.bitPattern == gain.bitPattern { return voice.telemetryDecibels.decibels }
        let decibels = decibels(gain)
        voice.telemetryDecibels = (gain, decibels)
        return decibels
    }

    /// A gain in dB, −120 for silence or less.
    static func decibels(_ gain: Float) -> Double {
        gain > 1e-6 ? max(-120, 20 * log10(Double(gain))) : -120
    }

    /// Whether `a` ranks before `b`: louder, or as loud and in an earlier row.
    static func louder(_ a: TelemetryRow, _ b: TelemetryRow) -> Bool {
        a.gain > b.gain || (a.gain == b.gain && a.row < b.row)
    }

    /// Moves the `count` loudest rows (by gain, then lowest row) to the front
    /// of `rows`, in that order, dropping the rest, and returns how many
    /// were kept (`min(count, rows.count)`): what a snapshot's
    /// ``TelemetrySelection`` keeps of the same rows.
    static func selectLoudest(_ rows: inout [TelemetryRow], count: Int) -> Int {
        var selection = TelemetrySelection()
        selection.reset(capacity: count)
        for row in rows { selection.offer(row) }
        selection.sortLoudestFirst()
        rows = (0..<selection.count).map { selection[$0] }
        return rows.count
    }

    // MARK: Event lines

    /// Sends a monitor an event line about `voice`; one nil check, and no
    /// string built, while nobody monitors (and one atomic load more, still
    /// nothing built, while monitoring is on but no monitor is attached).
    ///
    /// - Parameters:
    ///   - engine: the pool's engine (the caller holds it, and its lock).
    ///   - kind: what happened.
    ///   - voice: the voice it happened to.
    ///   - message: one line for a person (the reason), built only when sent.
    @inline(__always)
    func postTelemetry(
        _ engine: AudioEngine, _ kind: TelemetryEvent.Kind, _ voice: Voice, _ message: @autoclosure () -> String? = nil
    ) {
        guard let server = engine.telemetryServer, server.clientCount > 0 else { return }
        engine.postTelemetryLocked(
            TelemetryEvent(
                time: Double(engine.currentFrameLocked) / Double(engine.sampleRate), event: kind, voice: voice.id.raw,
                name: voice.telemetryName, message: message()))
    }

    // MARK: What a monitor changes

    /// Stops the live voice whose id is `id` with the usual short fade.
    ///
    /// - Parameter id: the voice's id (``TelemetrySnapshot/Voice/id``).
    /// - Returns: whether a live voice had that id.
    func stopVoiceLocked(id: UInt64) -> Bool {
        for s in 0..<table.rowCount {
            guard let voice = table[s], voice.id.raw == id, voice.phase != .finished else { continue }
            voice.recordLocked(.stop)
            stopLocked(voice)
            return true
        }
        return false
    }
}

extension Voice {
    /// What a monitor calls it: the sound event that started it, or its sound's file name.
    var telemetryName: String { eventName ?? sound.name }
}
