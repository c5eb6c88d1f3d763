import BackbeatEffects
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

/// Hears a level on an engine's voices: once a game frame, ``update()``
/// works out what the listener hears of every positioned voice through the
/// ``scene`` and sets it on the voice's direct filter and reverb send,
/// gliding over ``glide``.
///
/// The game calls ``update()`` from its own frame loop, on its own thread
/// (never the engine's): the casting runs there, outside the engine lock,
/// which is taken only briefly, to read where the voices are (those the
/// update step visits, and a share of the dormant ones) and to hand over
/// the results, in one call, and only those that changed audibly
/// (a gain by 0.25 dB, the direction by half a degree): about 50 µs an
/// update for 10,000 emitters.
/// The engine's update thread never waits for a ray. A
/// call rather than a thread of its own keeps an offline render exact (the
/// same frames hear the same results every run) and lets the game choose
/// when and on which core the work runs.
///
/// A voice keeps its last result while neither it, the listener nor the
/// geometry moved (``AcousticScene/geometryGeneration``): a still scene costs
/// a lookup per voice.
///
/// ```swift
/// let acoustics = AcousticSimulation(engine: engine, scene: try AcousticScene(level: level))
/// // each game frame:
/// acoustics.update()
/// ```
public final class AcousticSimulation: @unchecked Sendable {
    // @unchecked: every mutable member is read and written with `lock` held.

    /// How long a change of path glides: a bit over a game frame, so the
    /// next frame's result continues it without a step.
    public static let glide = MediaTime(value: 40, timescale: 1_000)

    /// A voice's last result, and what it was worked out for.
    struct Cached {
        var listener: SIMD3<Float>
        var position: SIMD3<Float>
        var radius: Float
        var generation: Int
        var path: AcousticPath
        /// The path's band gains as OpenAL's band-pass takes them, fitted once with the path.
        var filter: FilterGains
        /// The update it was worked out in.
        var update: Int
        /// The room the voice is in, if the level has rooms.
        var room: String?
        /// What was last handed over to the voice (nil: nothing yet).
        var handedBack: AcousticVoiceFilter? = nil
    }

    /// The engine whose voices it sets.
    public let engine: AudioEngine
    let lock = Lock()
    private var sceneValue: AcousticScene?
    private var cache: [Voice.ID: Cached] = [:]
    /// The table before ``cache``, emptied, which the next update fills (no allocation).
    private var spareCache: [Voice.ID: Cached] = [:]
    /// The filters an update hands over (the virtual voices' estimates, then
    /// the heard voices' results), reused.
    var filters: [AcousticVoiceFilter] = []
    /// The points an update estimates (awake voices, then dormant ones), reused.
    var estimatePositions: [SIMD3<Float>] = []
    /// Updates so far, and the movement threshold and path budget (see their properties).
    var updates = 0
    var movementThresholdValue: Float = 0.1
    var pathBudget = AcousticSimulation.defaultMaximumPathsPerUpdate
    private var voicesWithFilters: [Voice.ID: Voice] = [:]
    private var workedOut = 0
    /// Whether the last update set any room's reverb (so the next one silences them).
    private var roomsWithReverb = false
    private var roomsReverbSetting = true
    /// The room whose reverb was set last, and the geometry it was worked out for.
    private var reverbRoom: (name: String, generation: Int)?
    /// The dormant voices' table row the next update's share of estimates starts at.
    var dormantCursor = 0
    /// Whether estimates were set since the level was last removed.
    var estimatesSet = false
    /// The voices' audibility from their last traced path (``PathAudibility``).
    var pathAudibility: [Voice.ID: PathAudibility] = [:]

    /// A simulation of `scene` on `engine`'s voices.
    ///
    /// - Parameters:
    ///   - engine: The engine whose positioned voices hear the level.
    ///   - scene: The level; nil for none yet.
    public init(engine: AudioEngine, scene: AcousticScene? = nil) {
        self.engine = engine
        self.sceneValue = scene
        // The band fit's table is worked out once a process, on first use:
        // here, where a level loads, rather than in the first frame's update.
        _ = BandFilterFit.grid.count
    }

    deinit {
        // A simulation dropped with rooms heard: their reverbs fade out and give their slots back.
        if roomsWithReverb { engine.setRoomReverbs([], over: Self.glide) }
    }

    /// The level heard; setting nil (or another level) lets every voice go
    /// back to its unfiltered sound at the next ``update()``.
    public var scene: AcousticScene? {
        get { lock.withLock { sceneValue } }
        set {
            lock.withLock {
                sceneValue = newValue
                cache = [:]
                pathAudibility = [:]
                reverbRoom = nil
            }
        }
    }

    /// Whether ``update()`` sets the engine's reverb (``AudioEngine/reverbParameters``)
    /// to the listener's room's (``AcousticScene/reverbParameters(ofRoom:)``)
    /// when the listener enters a room or a door of it moves (default true).
    /// Outside every room the reverb stays as it was.
    public var setsRoomReverb: Bool {
        get { lock.withLock { roomsReverbSetting } }
        set { lock.withLock { roomsReverbSetting = newValue } }
    }

    /// How many paths ``update()`` has worked out (rather than reused) so far.
    public var pathsWorkedOut: Int { lock.withLock { workedOut } }

    /// Works out what the listener hears of every positioned voice now and
    /// sets it on the voices: call once a game frame, from the game's thread.
    ///
    /// - Returns: How many voices hear a result: handed over now, or kept
    ///   from an earlier update when it changed too little to hand over.
    @discardableResult
    public func update() -> Int {
        lock.withLock {
            let (listener, awake) = engine.acousticSnapshot()
            guard let scene = sceneValue else {
                // No level: whatever was set goes back to open, once.
                clearEstimatesLocked(awake: awake)
                let reset = voicesWithFilters.values.map {
                    AcousticVoiceFilter(voice: $0, direct: .open, send: .open)
                }
                voicesWithFilters = [:]
                engine.setAcousticFilters(reset, over: Self.glide)
                // Other rooms' reverbs fade out and give their slots back.
                if roomsWithReverb {
                    roomsWithReverb = false
                    engine.setRoomReverbs([], over: Self.glide)
                }
                return reset.count
            }
            let generation = scene.geometryGeneration
            if roomsReverbSetting, let room = scene.room(containing: listener),
                reverbRoom.map({ $0.name != room || $0.generation != generation }) ?? true,
                let reverb = scene.reverbParameters(ofRoom: room)
            {
                reverbRoom = (room, generation)
                engine.setReverbParameters(reverb, over: Self.glide)
            }
            filters.removeAll(keepingCapacity: true)
            // Every voice's audibility from rooms and portals; rays only for the voices heard.
            estimateAudibilityLocked(scene, listener: listener, awake: awake)
            // The heard voices, and the virtual ones whose path keeps them
            // virtual: their path follows them, so one that comes out from
            // behind a wall is heard again. The estimates above dropped
            // every awake voice's path that no longer stands.
            let voices = awake.filter { $0.isReal || pathAudibility[$0.voice.id] != nil }
            updates += 1
            var kept = [Cached?](repeating: nil, count: voices.count)
            // After a change of geometry every path is worked out; voices new
            // to the rays (heard meanwhile by their estimate) and voices that
            // moved share the budget.
            var changed: [Int] = []
            var waiting: [Int] = []
            for (index, state) in voices.enumerated() {
                let cached = cache[state.voice.id]
                kept[index] = cached
                guard let cached else {
                    waiting.append(index)
                    continue
                }
                if cached.generation != generation || cached.radius != state.radius {
                    changed.append(index)
                } else if !Self.within(
                    movementThresholdValue, cached, listener: listener, position: state.position)
                {
                    waiting.append(index)
                }
            }
            let chosen = Self.budgeted(changed: changed, waiting: waiting, kept: kept, budget: pathBudget)
            let computed = scene.paths(
                from: listener, to: chosen.map { (position: voices[$0].position, radius: voices[$0].radius) })
            workedOut += computed.count
            for (index, path) in zip(chosen, computed) {
                kept[index] = Cached(
                    listener: listener, position: voices[index].position, radius: voices[index].radius,
                    generation: generation, path: path, filter: path.gains.filterGains, update: updates,
                    room: scene.roomCount > 1 ? scene.room(containing: voices[index].position) : nil,
                    handedBack: kept[index]?.handedBack)
            }
            let listenerRoom = scene.roomCount > 1 ? scene.room(containing: listener) : nil
            setRoomReverbs(of: scene, rooms: kept.map { $0?.room }, listener: listener, in: listenerRoom)
            // Two tables in turn (the last update's, emptied, is filled):
            // an update allocates no dictionary of its own.
            var nextCache = spareCache
            spareCache = [:]
            var heard = 0
            var pathGains: [(voice: Voice, gain: Float)] = []
            for (state, cached) in zip(voices, kept) {
                guard var cached else { continue }
                heard += 1
                if cached.generation == generation {
                    let entry = PathAudibility(
                        gain: cached.filter.gain, position: cached.position, listener: cached.listener,
                        generation: generation, update: updates)
                    pathAudibility[state.voice.id] = entry
                    let gain = Self.audibilityGain(of: entry, isReal: state.isReal)
                    if gain != state.acousticGain { pathGains.append((state.voice, gain)) }
                }
                let gains = cached.filter
                // A voice in another room excites its own room unhindered;
                // that room's reverb reaches the listener through the portals.
                let otherRoom =
                    listenerRoom != nil && cached.room != nil && cached.room != listenerRoom ? cached.room : nil
                let filter = AcousticVoiceFilter(
                    voice: state.voice, direct: gains, send: otherRoom == nil ? gains : .open,
                    direction: cached.path.heardDirection, reverbRoom: otherRoom)
                // Handed over only when it changed audibly since it last was:
                // each hand-over starts a glide the engine steps every period.
                if !(cached.handedBack.map { Self.isAudiblySame(filter, as: $0) } ?? false) {
                    filters.append(filter)
                    cached.handedBack = filter
                }
                nextCache[state.voice.id] = cached
                voicesWithFilters[state.voice.id] = state.voice
            }
            spareCache = cache
            cache = nextCache
            spareCache.removeAll(keepingCapacity: true)
            // Voices that ended drop out of the table with the cache.
            if voicesWithFilters.count > nextCache.count {
                voicesWithFilters = voicesWithFilters.filter { nextCache[$0.key] != nil }
            }
            engine.setAcousticFilters(filters, over: Self.glide)
            engine.setAcousticGains(pathGains)
            prunePathAudibilityLocked()
            return heard
        }
    }

    /// Sets the reverbs of the rooms the listener is not in but voices are:
    /// each heard through the portals between (``AcousticScene/heardReverb(ofRoom:listener:forward:up:)``),
    /// silent when none is open. With `lock` held.
    ///
    /// - Parameters:
    ///   - scene: The level.
    ///   - rooms: Each voice's room.
    ///   - listener: Where the listener is.
    ///   - listenerRoom: The listener's room.
    private func setRoomReverbs(
        of scene: AcousticScene, rooms: [String?], listener: SIMD3<Float>, in listenerRoom: String?
    ) {
        var names: [String] = []
        if listenerRoom != nil {
            for case let room? in rooms where room != listenerRoom && !names.contains(room) { names.append(room) }
        }
        guard !names.isEmpty || roomsWithReverb else { return }
        roomsWithReverb = !names.isEmpty
        let (forward, up) = engine.listenerOrientationVectors()
        let reverbs = names.compactMap { name -> RoomReverb? in
            guard var reverb = scene.reverbParameters(ofRoom: name),
                let heard = scene.heardReverb(ofRoom: name, listener: listener, forward: forward, up: up)
            else { return nil }
            reverb.properties.reflectionsPan = (heard.pan.x, heard.pan.y, heard.pan.z)
            reverb.properties.lateReverbPan = (heard.pan.x, heard.pan.y, heard.pan.z)
            return RoomReverb(room: name, reverb: reverb, gain: heard.gain)
        }
        engine.setRoomReverbs(reverbs, over: Self.glide)
    }
}
