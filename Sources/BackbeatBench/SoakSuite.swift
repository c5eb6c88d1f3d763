import Backbeat
import BackbeatEffects
import BackbeatEngine
import BackbeatMedia
import Foundation

/// A long real-time run: a `.file` output paced like a device, with a game
/// loop applying random (seeded) load from its own thread — effect
/// triggers, bus fades and ducks, session events. Checks that resident
/// memory stays flat, that OpenAL source and buffer counts come back to
/// where they started, and that nothing underran.
package struct SoakSuite: BenchSuite {
    package let name = "soak"
    package let summary =
        "real-time .file output with random triggers, fades, ducks and session events (10 minutes; --seconds)"

    /// The participants a soak runs unless told otherwise. Music queue
    /// changes and streams join here when the music player lands.
    package static var defaultParticipants: [any SoakParticipant] {
        [EffectsSoak(), BusSoak(), SessionSoak(), QueueSoak()]
    }

    private let makeParticipants: @Sendable () -> [any SoakParticipant]

    /// A soak with ``defaultParticipants``.
    package init() { makeParticipants = { SoakSuite.defaultParticipants } }

    /// A soak with the participants `make` returns (called once per run).
    package init(participants make: @escaping @Sendable () -> [any SoakParticipant]) { makeParticipants = make }

    /// What one soak run saw.
    package struct Result: Sendable {
        /// Wall-clock seconds the load ran.
        package var seconds: Double
        /// Effect voice restarts plus every participant's underruns.
        package var underruns: Int
        /// Sources alive after the run less those alive before it.
        package var leakedSources: Int
        /// Buffers alive after the run less those alive before it.
        package var leakedBuffers: Int
        /// Resident memory at the end of the load less at the end of the warm-up, MiB.
        package var rssGrowthMiB: Double
        /// Resident memory at the end of the warm-up, MiB.
        package var rssWarmMiB: Double
        /// The furthest engine time fell behind the wall clock, ms.
        package var maxLagMilliseconds: Double
        /// Times engine time fell more than 30 ms behind the wall clock.
        package var lateEpisodes: Int
        /// Frames the file received.
        package var framesRendered: Int64
    }

    /// Runs the load for `seconds` of wall-clock time.
    package func soak(seconds: Double, seed: UInt64 = 2009, log: (String) -> Void) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "backbeat-soak-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let engine = try AudioEngine(
            output: .file(url: directory.appendingPathComponent("soak.wav"), sampleRate: 48_000, pacing: .realTime))
        defer { engine.shutdown() }
        // The effects' voice pool takes its sources at the first play and keeps
        // them for the engine's life: the baseline is taken once it holds them
        // (and a cached sound's buffer), so only what is not given back counts.
        let poolWarmUp = try SoundEffect(
            buffer: PCMBuffer(
                format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: [Float](repeating: 0, count: 480)),
            name: "warm-up", engine: engine)
        poolWarmUp.play(volume: 0)
        usleep(200_000)
        let baseSources = engine.liveSourceCount
        let baseBuffers = engine.liveBufferCount
        log("baseline: \(baseSources) sources, \(baseBuffers) buffers, \(fmt(residentMiB())) MiB resident")

        var participants = makeParticipants()
        for participant in participants { try participant.start(engine: engine) }

        var random = SeededRandom(seed: seed)
        let warmUp = min(60, seconds * 0.1)
        let tick = 0.005
        let start = monotonicNanoseconds()
        let engineStart = engine.currentTime.seconds
        var ticks = 0
        var rssWarm: Double?
        var maxLag = 0.0
        var maxLagAt = 0.0
        var lateEpisodes = 0
        var late = false
        var nextReport = 1.0
        var elapsed = 0.0
        while elapsed < seconds {
            for participant in participants { participant.tick(engine: engine, random: &random, second: elapsed) }
            ticks += 1
            elapsed = Double(monotonicNanoseconds() - start) / 1e9
            let lag = elapsed - (engine.currentTime.seconds - engineStart)
            if lag > maxLag {
                maxLag = lag
                maxLagAt = elapsed
            }
            // A device's buffer (30 ms by default) would have run dry: count each episode once.
            if lag > 0.03, !late { lateEpisodes += 1 }
            late = lag > 0.03
            if rssWarm == nil, elapsed >= warmUp { rssWarm = residentMiB() }
            if elapsed >= nextReport {
                nextReport += seconds >= 60 ? 60 : 1
                log(
                    "\(Int(elapsed)) s: \(fmt(residentMiB())) MiB, \(engine.liveSourceCount) sources, \(engine.liveBufferCount) buffers; "
                        + participants.map { "\($0.name): \($0.summary)" }.joined(separator: "; "))
            }
            // Wall clock only decides when the game loop wakes.
            let next = Double(ticks) * tick
            if next > elapsed { usleep(UInt32((next - elapsed) * 1e6)) }
            elapsed = Double(monotonicNanoseconds() - start) / 1e9
        }
        let rssEnd = residentMiB()
        for participant in participants { log("\(participant.name): \(participant.summary)") }
        let participantUnderruns = participants.reduce(0) { $0 + $1.underruns }
        for participant in participants { participant.finish(engine: engine) }
        participants.removeAll()

        // Stopped voices ramp out and the last one-shots play to their end in
        // real time; then every source and buffer must be back.
        let drainStart = monotonicNanoseconds()
        while Double(monotonicNanoseconds() - drainStart) / 1e9 < 10,
            engine.liveSourceCount != baseSources || engine.liveBufferCount != baseBuffers
        {
            usleep(20_000)
        }
        let result = Result(
            seconds: elapsed,
            underruns: engine.effectVoiceRestarts + participantUnderruns,
            leakedSources: engine.liveSourceCount - baseSources,
            leakedBuffers: engine.liveBufferCount - baseBuffers,
            rssGrowthMiB: rssEnd - (rssWarm ?? rssEnd),
            rssWarmMiB: rssWarm ?? rssEnd,
            maxLagMilliseconds: maxLag * 1e3,
            lateEpisodes: lateEpisodes,
            framesRendered: engine.currentTime.frames(atSampleRate: 48_000, rounding: .down))
        log(
            "after \(fmt(elapsed)) s: \(result.underruns) underruns (\(engine.effectVoiceRestarts) effect voice restarts), \(result.leakedSources) leaked sources, \(result.leakedBuffers) leaked buffers, "
                + "RSS \(fmt(result.rssWarmMiB)) → \(fmt(rssEnd)) MiB, engine at most \(fmt(result.maxLagMilliseconds)) ms behind the wall clock "
                + "(at \(fmt(maxLagAt)) s; \(lateEpisodes) times more than 30 ms behind)")
        return result
    }

    package func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let seconds = options.seconds ?? (options.quick ? 5 : 600)
        let r = try soak(seconds: seconds, log: log)
        return [
            Figure(key: "seconds", value: r.seconds.rounded(), unit: "s of real-time .file output under load"),
            Figure(
                key: "underruns", value: Double(r.underruns),
                unit: "effect voices that ran dry and restarted (goal 0; streams join with the music player)"),
            Figure(
                key: "leaked_sources", value: Double(r.leakedSources),
                unit: "OpenAL sources alive after the run beyond the baseline (goal 0)"),
            Figure(
                key: "leaked_buffers", value: Double(r.leakedBuffers),
                unit: "OpenAL buffers alive after the run beyond the baseline (goal 0)"),
            Figure(
                key: "rss_growth_mib", value: r.rssGrowthMiB,
                unit: "MiB resident growth from the end of the warm-up to the end (goal ≈ 0)"),
            Figure(
                key: "max_lag_ms", value: r.maxLagMilliseconds,
                unit: "ms, furthest engine time fell behind the wall clock (a device buffers 30)"),
            Figure(
                key: "late_episodes", value: Double(r.lateEpisodes),
                unit: "times engine time fell more than 30 ms behind the wall clock"),
        ]
    }

    private func fmt(_ v: Double) -> String { String(format: "%.1f", v) }
}
