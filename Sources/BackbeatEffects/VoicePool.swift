import BackbeatEngine
import BackbeatMedia
import BackbeatOpenAL

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Decides which logical voice gets which OpenAL source.
///
/// Sources are a fixed pool, generated when the engine opens from what the
/// device grants (less a reserve for music streams). A small part of the pool
/// is held back for hand-offs, so a stolen voice can fade out on its own
/// source while the newcomer starts at once on another. Voices beyond the
/// sources are either refused (one-shots) or virtual (loops), and any number
/// of logical voices can exist.
///
/// Every stop, pause and steal ramps the gain to zero first (OpenAL Soft 1.19
/// stops a source dead): the gain goes to zero on one update step, OpenAL
/// interpolates it over its mixing quantum, and the source is stopped
/// ``rampFrames`` later (a positioned voice the audibility pass finds below
/// the threshold: one update period later on a loopback device, whose
/// render ramps a change over the one OpenAL call of the next period).
final class VoicePool: EngineComponent, @unchecked Sendable {
    // @unchecked: every field is read and written only under the engine lock.
    weak var engine: AudioEngine?
    /// Sources no voice holds, each with what it still holds from the endless
    /// loop that gave it back at the threshold (nil: nothing, the next attach sets it all).
    var free: [(source: ALSource, warmth: Warmth?)] = []
    /// Sources the pool owns.
    var sourceCount = 0
    /// Voices that may hold a source at once; the rest of the pool is the hand-off reserve.
    var capacity = 1
    let limit: Int?
    /// Frames between setting a gain to zero and stopping the source: at least 5 ms.
    let rampFrames: Int64
    /// The voices the update step visits: every live voice but the dormant ones.
    var voices: [Voice] = []
    /// The table of live voices, one row (slot) each: what the audibility
    /// pass and ``moveBatch(_:to:)`` read for the dormant voices (virtual, out
    /// of earshot) without visiting them.
    var table = DormantTable<Voice>()
    var dormantCount = 0
    /// Times a voice went dormant, and woke, since the engine opened.
    var sleeps = 0, wakes = 0
    /// Sources taken back warm (see ``Warmth``) since the engine opened.
    var warmStarts = 0
    /// Free sources that still hold a sound (see ``Warmth``).
    var warmFreeSources: Int { free.lazy.filter { $0.warmth != nil }.count }
    /// A voice went dormant while still in the list of voices (removed at the end of the update step).
    var sleptOutsidePass = false
    /// The reaches need working out again (threshold or distance curve changed).
    var reachesStale = false
    /// Rows moved within their reach since the last pass (maybe stale: checked when woken).
    var pendingWake: [Int] = []
    /// Where the listener was at the last full look at the table: while it
    /// stays there, only rows that moved need a look, when they move.
    var scannedListener = Audio3DPoint(x: .nan, y: .nan, z: .nan)
    /// Sources that ran dry between update steps and were restarted (effect underruns).
    var restarts = 0
    var activeBySound: [ObjectIdentifier: Int] = [:]
    /// A voice finished since the list was last swept.
    var anyFinished = false

    /// Something that changes which voices are audible changed (a position,
    /// a volume, the listener, a voice's start or end): the next update step
    /// runs the audibility pass.
    var audibilityDirty = false
    /// ``AudioEngine/audibilityThreshold`` in decibels, and as a gain.
    var thresholdDecibels: Float = -60
    var thresholdGain: Float = 0.001
    /// ``AudioEngine/audibilityMargin`` in decibels, and the gain below
    /// which an awake virtual voice goes to sleep (the threshold less the margin).
    var marginDecibels: Float = 3
    var sleepGain: Float = 0.001 * powf(10, -3 / 20)
    /// Reused by the audibility pass, so an update allocates nothing.
    var waiting: [Voice] = []
    var holding: [Voice] = []
    /// The loudest voices of each monitor snapshot (``contributeLocked(to:)``),
    /// its storage kept between snapshots; empty while nobody monitors.
    var telemetrySelection = TelemetrySelection()
    /// Half the gain of the last snapshot's quietest listed voice (0: none):
    /// the next snapshot offers the sleeping rows from here up first, and
    /// the others only if too few were at it. Voices move little between
    /// snapshots, so nearly all of 10,000 are turned away by one compare each.
    var telemetryFloor: Float = 0
    /// Every table row's gain as a snapshot ranks them, kept between snapshots.
    var telemetryGains: [Float] = []
    /// A voice holding a source keeps it against a virtual one unless that one
    /// is this much more audible (2 dB), so voices near the cut do not trade places every step.
    static let hysteresis: Float = 1.26

    /// Sources left for music streams and other owners outside the pool.
    static let streamReserve = 16

    /// A pool on `engine`'s device. Made on the engine's first use of
    /// effects (see `AudioEngine+Effects`), under the engine lock.
    init(engine: AudioEngine, limit: Int?) {
        self.engine = engine
        self.limit = limit
        rampFrames = Int64(max(engine.updateInterval * 2, engine.sampleRate / 200))
        // Only a closed device refuses; a pool on it has no sources, and the engine refuses every start.
        try? takeSources(from: engine.device)
    }

    /// The device the engine has now (it changes when the output is lost).
    var device: ALDevice { engine!.device }

    /// Generates the pool's sources on `device`: what it grants, less the stream reserve.
    func takeSources(from device: ALDevice) throws {
        let granted = max(4, device.maxSources - Self.streamReserve)
        let wanted = limit.map { min(granted, max(2, $0 + max(1, $0 / 16))) } ?? granted
        var sources: [ALSource] = []
        while sources.count < wanted, let name = try? device.generateSource() {
            sources.append(ALSource(name: name))
        }
        try device.withContext { for s in sources { s.reset() } }
        free = sources.map { ($0, nil) }
        let count = sources.count
        sourceCount = count
        capacity = max(1, limit.map { min($0, count - 1) } ?? (count - max(2, count / 16)))
    }

    // MARK: Queries

    /// Voices of `sound` that have not finished.
    func activeVoiceCount(of sound: SoundEffect) -> Int { activeBySound[ObjectIdentifier(sound)] ?? 0 }

    /// Logical voices alive (pending, playing, paused or virtual).
    var liveVoiceCount: Int {
        (sleptOutsidePass ? voices.lazy.filter { !$0.record.isDormant }.count : voices.count) + dormantCount
    }

    /// Voices fading out on their source before giving it up.
    var stoppingCount = 0
    /// Voices that stole a source and wait for its fade-out to end.
    var claimCount = 0

    /// Voices holding a source (not fading it out) or promised one: O(1).
    var audibleCount: Int { sourceCount - free.count - stoppingCount + claimCount }

    /// Counts of voices by public state.
    var stateCounts: [Voice.State: Int] {
        var counts: [Voice.State: Int] = [:]
        for voice in voices where !voice.record.isDormant { counts[voice.stateLocked, default: 0] += 1 }
        if dormantCount > 0 { counts[.virtual, default: 0] += dormantCount }
        return counts
    }
}
