import BackbeatEffects
import BackbeatEngine

extension AcousticSimulation {
    /// How many dormant voices an update estimates: a share of the table
    /// each frame, so ten thousand sleeping emitters cost a few microseconds
    /// and each is looked at again within a fraction of a second.
    public static let dormantVoicesPerUpdate = 500

    /// Sets every awake voice's audibility estimate, and a share of the
    /// dormant voices', from the rooms they and the listener are in and the
    /// portals between (``AcousticScene/audibilityEstimates(from:to:)``: a
    /// point-in-room lookup and a table, no ray), or, for a voice traced
    /// lately (``PathAudibility``), from its path. A virtual voice also gets
    /// the estimate as its filter, so it starts near what the rays will say
    /// when it takes a source: its filter joins ``filters``, which the
    /// update hands over with the heard voices' results. With the
    /// simulation's lock held.
    ///
    /// - Parameters:
    ///   - scene: The level.
    ///   - listener: Where the listener is.
    ///   - awake: The voices the engine's update step visits.
    func estimateAudibilityLocked(_ scene: AcousticScene, listener: SIMD3<Float>, awake: [AcousticVoiceState]) {
        let dormant = engine.acousticDormantVoices(from: dormantCursor, limit: Self.dormantVoicesPerUpdate)
        dormantCursor = dormant.next
        // Whatever was set from here on is cleared once the level goes (clearEstimatesLocked).
        estimatesSet = true
        guard !awake.isEmpty || !dormant.voices.isEmpty else { return }
        // The awake voices, then the dormant ones, without a joined copy of the two.
        estimatePositions.removeAll(keepingCapacity: true)
        for state in awake { estimatePositions.append(state.position) }
        for state in dormant.voices { estimatePositions.append(state.position) }
        let estimates = scene.audibilityEstimates(from: listener, to: estimatePositions)
        var gains: [(voice: Voice, gain: Float)] = []
        let generation = scene.geometryGeneration
        // A level has a few rooms, so a frame's estimates are a few values
        // over and over: each is fitted to the band-pass once.
        var fitted: [(bands: AcousticBands, filter: FilterGains)] = []
        for (index, bands) in estimates.enumerated() {
            let state = index < awake.count ? awake[index] : dormant.voices[index - awake.count]
            // A voice traced lately takes its path's gain, not the table's (see PathAudibility).
            if let entry = pathAudibility[state.voice.id] {
                if Self.stands(entry, position: state.position, listener: listener, generation: generation) {
                    pathAudibility[state.voice.id]?.update = updates
                    let gain = Self.audibilityGain(of: entry, isReal: state.isReal)
                    if gain != state.acousticGain { gains.append((state.voice, gain)) }
                    continue
                }
                pathAudibility[state.voice.id] = nil
            }
            let filter: FilterGains
            if let known = fitted.first(where: { $0.bands == bands }) {
                filter = known.filter
            } else {
                filter = bands.filterGains
                if fitted.count < 16 { fitted.append((bands, filter)) }
            }
            if filter.gain != state.acousticGain { gains.append((state.voice, filter.gain)) }
            // Awake and virtual: the estimate is its sound until it is heard (setting an unchanged filter is a compare).
            if index < awake.count, !state.isReal {
                filters.append(AcousticVoiceFilter(voice: state.voice, direct: filter, send: filter))
            }
        }
        engine.setAcousticGains(gains)
        // The filters go with the heard voices' results, in the update's one hand-over.
    }

    /// Without a level: every estimate back to 1 and every virtual voice's
    /// filter open, once after a level was removed. With the simulation's lock held.
    ///
    /// - Parameter awake: The voices the engine's update step visits.
    func clearEstimatesLocked(awake: [AcousticVoiceState]) {
        guard estimatesSet else { return }
        estimatesSet = false
        let voices = awake + engine.acousticDormantVoices(from: 0, limit: .max).voices
        pathAudibility = [:]
        engine.setAcousticGains(voices.filter { $0.acousticGain != 1 }.map { (voice: $0.voice, gain: Float(1)) })
        engine.setAcousticFilters(
            voices.filter { !$0.isReal }.map { AcousticVoiceFilter(voice: $0.voice, direct: .open, send: .open) },
            over: Self.glide)
    }
}
