import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL

/// The reverbs of the rooms the listener is not in: one EFX slot per room
/// that has had a voice in it, which that room's voices send to instead of
/// the environment reverb (a source has two sends, and OpenAL Soft 1.19
/// chains no effects, so a voice's room is one slot of its own). Each
/// slot's level glides to what reaches the listener through the portals;
/// its pans (EAX reflections and late-reverb pan) point at the portal.
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
    }

    weak var engine: AudioEngine?
    private(set) var rooms: [String: Room] = [:]
    /// Whether a level still glides or a change waits for the next step.
    private var busy = false

    init(engine: AudioEngine) { self.engine = engine }

    /// The slot a voice in `room` sends to, or nil if no reverb was set for it.
    ///
    /// - Parameter room: The room's name.
    func slot(ofRoom room: String) -> ALEffectSlot? { rooms[room]?.slot }

    /// Sets the rooms' reverbs; rooms left out glide to silence.
    ///
    /// - Parameters:
    ///   - reverbs: The rooms heard and how.
    ///   - frames: How long the levels glide.
    ///   - frame: The engine frame now.
    func set(_ reverbs: [RoomReverb], glideFrames frames: Int64, at frame: Int64) {
        guard let engine else { return }
        var wanted: [String: RoomReverb] = [:]
        for reverb in reverbs { wanted[reverb.room] = reverb }
        var made = false
        for name in wanted.keys where rooms[name] == nil {
            guard let slot = try? engine.device.generateEffectSlot() else { continue }
            rooms[name] = Room(slot: slot)
            made = true
        }
        // Voices already in a room learn of its new slot at their next step.
        if made { engine.voicePoolLocked.unsettleAll() }
        for name in rooms.keys {
            guard var room = rooms[name] else { continue }
            let reverb = wanted[name]
            let target = reverb.map { min(max($0.gain, 0), 1) * $0.reverb.slotGain } ?? 0
            if let reverb { room.properties = reverb.reverb.properties }
            if target != room.target {
                room.from = room.current
                room.target = target
                room.glideStart = frame
                room.glideEnd = frame + max(frames, 1)
            }
            rooms[name] = room
        }
        busy = true
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
        busy = gliding
    }

    func deviceWillBeReplaced(readPositions: Bool) { rooms = [:] }
    func deviceWasReplaced() throws { engine?.voicePoolLocked.unsettleAll() }
    func engineWillShutDown() { rooms = [:] }
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
    /// over `duration`, and rooms left out glide to silence.
    ///
    /// - Parameters:
    ///   - reverbs: The rooms heard through portals, and how.
    ///   - duration: How long the levels glide in engine time; nil for the de-zipper time.
    package func setRoomReverbs(_ reverbs: [RoomReverb], over duration: MediaTime?) {
        withLock {
            guard !reverbs.isEmpty || existingEffectsLocked?.roomReverbs != nil else { return }
            // Levels within 0...1 as the mixer takes them (NaN: silence), as the capture records them.
            let reverbs =
                reverbs.contains { !($0.gain >= 0 && $0.gain <= 1) }
                ? reverbs.map {
                    RoomReverb(room: $0.room, reverb: $0.reverb, gain: $0.gain.isNaN ? 0 : min(max($0.gain, 0), 1))
                } : reverbs
            recordRoomReverbsLocked(reverbs, over: duration)
            let frames = duration?.frames(atSampleRate: sampleRate) ?? dezipperFrames
            roomReverbsLocked.set(reverbs, glideFrames: max(frames, dezipperFrames), at: currentFrameLocked)
        }
    }

    /// The listener's facing and up vectors (unit length), in one hold of the lock.
    package func listenerOrientationVectors() -> (forward: SIMD3<Float>, up: SIMD3<Float>) {
        withLock {
            let l = listenerLocked
            return ([l.forward.x, l.forward.y, l.forward.z], [l.up.x, l.up.y, l.up.z])
        }
    }
}
