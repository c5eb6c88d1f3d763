import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL

/// The reverbs of the rooms the listener is not in: one EFX slot per room
/// that has had a voice in it, which that room's voices send to instead of
/// the environment reverb (a source has two sends, and OpenAL Soft 1.19
/// chains no effects, so a voice's room is one slot of its own). Each
/// slot's level glides to what reaches the listener through the portals;
/// its pans (EAX reflections and late-reverb pan) point at the portal and
/// glide with the level when the portal's direction changes.
/// Lives under the engine lock.
final class RoomReverbMixer: EngineComponent {
    /// One room's slot and where its level is gliding.
    struct Room {
        var slot: ALEffectSlot
        var properties = ALReverbProperties()
        var loaded: ALReverbProperties?
        var from: Float = 0
        var current: Float = 0
        var target: Float = 0
        var glideStart: Int64 = 0
        var glideEnd: Int64 = 0
        var applied: Float = -1
        /// The reflections' and late reverb's pans: where they glide from and
        /// to, and when (a listener who crosses a door turns them around).
        var pans = Pans()
    }

    /// A room's two pan vectors (EAX: +X right, +Y up, +Z ahead) and their glide.
    struct Pans {
        var from = (reflections: SIMD3<Float>.zero, late: SIMD3<Float>.zero)
        var target = (reflections: SIMD3<Float>.zero, late: SIMD3<Float>.zero)
        var current = (reflections: SIMD3<Float>.zero, late: SIMD3<Float>.zero)
        var start: Int64 = 0
        var end: Int64 = 0

        /// Glides to `target` from where the pans are now over `frames`, or
        /// starts there while the room is silent (nothing heard to move).
        ///
        /// - Parameters:
        ///   - target: The new pans.
        ///   - silent: Whether the room is silent now.
        ///   - frame: The engine frame now.
        ///   - frames: How long the glide takes.
        mutating func glide(
            to target: (reflections: SIMD3<Float>, late: SIMD3<Float>), silent: Bool, at frame: Int64,
            over frames: Int64
        ) {
            guard target != self.target else { return }
            self.target = target
            if silent {
                from = target
                current = target
                end = frame
            } else {
                from = current
                start = frame
                end = frame + max(frames, 1)
            }
        }

        /// Moves the pans to where the glide is at `stepEnd`.
        ///
        /// - Parameter stepEnd: The frame the update step ends at.
        /// - Returns: whether they still glide.
        mutating func step(to stepEnd: Int64) -> Bool {
            guard stepEnd < end, end > start else {
                current = target
                return false
            }
            let t = Float(Double(stepEnd - start) / Double(end - start))
            let u = min(max(t, 0), 1)
            current = (
                from.reflections + (target.reflections - from.reflections) * u,
                from.late + (target.late - from.late) * u
            )
            return true
        }
    }

    /// The most rooms with a slot at once: the loudest keep theirs. Each
    /// slot is a reverb the mixer runs, and OpenAL Soft 1.19 grants 64
    /// slots a device, shared with the environment reverb and the buses.
    static let maximumRooms = 8

    weak var engine: AudioEngine?
    private(set) var rooms: [String: Room] = [:]
    /// Rooms no longer heard (left out, or over ``maximumRooms``): their
    /// slots are deleted once silent and no source sends to them.
    private var leaving: Set<String> = []
    /// Slots made and deleted so far (the engine's bookkeeping, for tests and the monitor).
    private(set) var slotsMade = 0
    private(set) var slotsFreed = 0
    /// Whether a level still glides or a change waits for the next step.
    private var busy = false

    init(engine: AudioEngine) { self.engine = engine }

    /// The slot a voice in `room` sends to, or nil if no reverb was set for it.
    ///
    /// - Parameter room: The room's name.
    func slot(ofRoom room: String) -> ALEffectSlot? { leaving.contains(room) ? nil : rooms[room]?.slot }

    /// Sets the rooms' reverbs; rooms left out glide to silence.
    ///
    /// - Parameters:
    ///   - reverbs: The rooms heard and how.
    ///   - frames: How long the levels glide.
    ///   - frame: The engine frame now.
    /// - Returns: Whether anything changed (a slot, a level, a pan, a reverb):
    ///   the same rooms set again ask for no update step.
    @discardableResult
    func set(_ reverbs: [RoomReverb], glideFrames frames: Int64, at frame: Int64) -> Bool {
        guard let engine else { return false }
        var wanted: [String: RoomReverb] = [:]
        // The loudest rooms keep a slot; a room first heard at silence waits for a level.
        let ranked = reverbs.filter { Self.level(of: $0) > 0 || rooms[$0.room] != nil }
            .sorted { Self.level(of: $0) > Self.level(of: $1) }
        // Slots are made in rank order, never in the dictionary's (seeded
        // per process): OpenAL Soft mixes slots in the order they were made,
        // and a replay must add the same floats in the same order.
        var order: [String] = []
        for reverb in ranked.prefix(Self.maximumRooms) where wanted[reverb.room] == nil {
            wanted[reverb.room] = reverb
            order.append(reverb.room)
        }
        var made = false
        for name in order where rooms[name] == nil {
            guard let slot = try? engine.device.generateEffectSlot() else { continue }
            rooms[name] = Room(slot: slot)
            slotsMade += 1
            made = true
        }
        let left = Set(rooms.keys.filter { wanted[$0] == nil })
        // Voices already in a room learn of its new slot, or that it has
        // none any more, at their next step.
        var changed = made || left != leaving
        if made || !left.isSubset(of: leaving) { engine.voicePoolLocked.unsettleAll() }
        leaving = left
        for name in rooms.keys {
            guard var room = rooms[name] else { continue }
            let reverb = wanted[name]
            let target = reverb.map { min(max($0.gain, 0), 1) * $0.reverb.slotGain } ?? 0
            if let reverb {
                // The pans are in the properties: a new pan is a change.
                if room.properties != reverb.reverb.properties { changed = true }
                room.properties = reverb.reverb.properties
                let p = room.properties
                room.pans.glide(
                    to: (
                        [p.reflectionsPan.x, p.reflectionsPan.y, p.reflectionsPan.z],
                        [p.lateReverbPan.x, p.lateReverbPan.y, p.lateReverbPan.z]
                    ), silent: room.current == 0, at: frame, over: frames)
            }
            if target != room.target {
                changed = true
                room.from = room.current
                room.target = target
                room.glideStart = frame
                room.glideEnd = frame + max(frames, 1)
            }
            rooms[name] = room
        }
        if changed { busy = true }
        return changed
    }

    /// The slot level a room's reverb asks for.
    ///
    /// - Parameter reverb: The room's reverb and what reaches the listener.
    static func level(of reverb: RoomReverb) -> Float {
        let gain = reverb.gain.isNaN ? 0 : min(max(reverb.gain, 0), 1)
        return gain * reverb.reverb.slotGain
    }

    /// Deletes the slots of the rooms no longer heard that are silent and
    /// that no source sends to any more (their voices step to another send
    /// in the same update they are told). With the lock held.
    ///
    /// - Returns: whether some wait still.
    private func freeSilentSlots(of engine: AudioEngine) -> Bool {
        guard !leaving.isEmpty else { return false }
        var inUse = Set<ALEffectSlot>()
        for voice in engine.voicePoolLocked.voices {
            if let slot = voice.mix.appliedSend?.slot { inUse.insert(slot) }
        }
        for name in leaving.sorted() {
            guard let room = rooms[name] else {
                leaving.remove(name)
                continue
            }
            guard room.current == 0, room.target == 0, !inUse.contains(room.slot) else { continue }
            engine.device.deleteEffectSlot(room.slot)
            rooms[name] = nil
            leaving.remove(name)
            slotsFreed += 1
        }
        return !leaving.isEmpty
    }

    func update(at frame: Int64) throws {
        guard busy, let engine else { return }
        let device = engine.device
        let stepEnd = frame + Int64(engine.updateInterval)
        var gliding = false
        for name in rooms.keys {
            guard var room = rooms[name] else { continue }
            if stepEnd >= room.glideEnd {
                room.current = room.target
            } else {
                let t = Float(Double(stepEnd - room.glideStart) / Double(room.glideEnd - room.glideStart))
                room.current = room.from + (room.target - room.from) * min(max(t, 0), 1)
                gliding = true
            }
            if room.pans.step(to: stepEnd) { gliding = true }
            let (reflections, late) = room.pans.current
            room.properties.reflectionsPan = (reflections.x, reflections.y, reflections.z)
            room.properties.lateReverbPan = (late.x, late.y, late.z)
            if room.current > 0 {
                if room.loaded != room.properties {
                    try device.loadReverb(room.properties, into: room.slot)
                    room.loaded = room.properties
                }
            } else if room.loaded != nil {
                // Silent: unload, so the reverb costs nothing until it sounds again.
                device.clearEffect(of: room.slot)
                room.loaded = nil
            }
            if room.current != room.applied {
                device.setGain(room.current, of: room.slot)
                room.applied = room.current
            }
            rooms[name] = room
        }
        let waiting = freeSilentSlots(of: engine)
        busy = gliding || waiting
    }

    /// Every period while a level or a pan glides or a slot waits to be
    /// freed; nothing otherwise: ``set(_:glideFrames:at:)`` comes from a
    /// call that wakes the update loop, and nothing else moves the rooms.
    func nextDueFrame(after frame: Int64) -> Int64? { busy ? frame : nil }
    func nextStepFrame(after frame: Int64) -> Int64? { busy ? frame : nil }

    func deviceWillBeReplaced(readPositions: Bool) {
        rooms = [:]
        leaving = []
    }
    func deviceWasReplaced() throws { engine?.voicePoolLocked.unsettleAll() }
    func engineWillShutDown() {
        rooms = [:]
        leaving = []
    }
}

extension AudioEngine {
    /// The rooms' reverbs, made on first use, with the lock held.
    var roomReverbsLocked: RoomReverbMixer {
        let effects = effectsLocked
        if let mixer = effects.roomReverbs { return mixer }
        let mixer = RoomReverbMixer(engine: self)
        registerLocked(mixer)
        effects.roomReverbs = mixer
        return mixer
    }

    /// Sets the reverbs of the rooms the listener is not in, which their
    /// voices send to (``AcousticVoiceFilter/reverbRoom``); the levels glide
    /// over `duration`, and rooms left out glide to silence and give their
    /// slot back once no source sends to it (at most
    /// ``RoomReverbMixer/maximumRooms`` at once, the loudest).
    ///
    /// - Parameters:
    ///   - reverbs: The rooms heard through portals, and how.
    ///   - duration: How long the levels glide in engine time; nil for the de-zipper time.
    package func setRoomReverbs(_ reverbs: [RoomReverb], over duration: MediaTime?) {
        withLock(waking: false) {
            guard !reverbs.isEmpty || existingEffectsLocked?.roomReverbs != nil else { return }
            // Levels within 0...1 as the mixer takes them (NaN: silence), as the capture records them.
            let reverbs =
                reverbs.contains { !($0.gain >= 0 && $0.gain <= 1) }
                ? reverbs.map {
                    RoomReverb(room: $0.room, reverb: $0.reverb, gain: $0.gain.isNaN ? 0 : min(max($0.gain, 0), 1))
                } : reverbs
            recordRoomReverbsLocked(reverbs, over: duration)
            let frames = duration?.frames(atSampleRate: sampleRate) ?? dezipperFrames
            // Only a change asks for an update step: the acoustics set the same rooms every game frame.
            if roomReverbsLocked.set(reverbs, glideFrames: max(frames, dezipperFrames), at: currentFrameLocked) {
                requestStepLocked()
            }
        }
    }

    /// The room reverbs' slots: how many there are now, and how many were
    /// made and deleted so far (see ``setRoomReverbs(_:over:)``).
    package var roomReverbSlots: (live: Int, made: Int, freed: Int) {
        withLock {
            guard let mixer = existingEffectsLocked?.roomReverbs else { return (0, 0, 0) }
            return (mixer.rooms.count, mixer.slotsMade, mixer.slotsFreed)
        }
    }

    /// The listener's facing and up vectors (unit length), in one hold of the lock.
    package func listenerOrientationVectors() -> (forward: SIMD3<Float>, up: SIMD3<Float>) {
        // A read: it wakes no update step (the acoustics read it every game frame).
        withLock(waking: false) {
            let l = listenerLocked
            return ([l.forward.x, l.forward.y, l.forward.z], [l.up.x, l.up.y, l.up.z])
        }
    }
}
