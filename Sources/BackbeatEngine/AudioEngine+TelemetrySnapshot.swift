import BackbeatSupport
import BackbeatTelemetry

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

/// Building the snapshots a monitor reads, in the update step and for tests.
extension AudioEngine {
    /// Builds a snapshot of the engine now: engine time, every bus (the
    /// master first) with its level, the game parameters, the engine's
    /// figures, then what each ``TelemetryContributor`` adds. Its levels and
    /// CPU figure cover the engine time since the previous snapshot, which
    /// this one ends.
    ///
    /// - Returns: The snapshot.
    package func telemetrySnapshotLocked() -> TelemetrySnapshot {
        preconditionLocked()
        let frame = currentFrameLocked
        let window = max(0, frame - monitoring.lastSnapshotFrame)
        let seconds = Double(window) / Double(sampleRate)
        let cpuPercent = seconds > 0 ? Double(monitoring.stepCPUNanoseconds) / 1e9 / seconds * 100 : 0
        let figures = TelemetrySnapshot.Engine(
            sourcesInUse: 0, sourcesTotal: device.maxSources, underruns: monitoring.underruns,
            updateCPUPercent: cpuPercent, output: outputKind, sampleRate: sampleRate)
        let builder = TelemetrySnapshotBuilder(
            snapshot: TelemetrySnapshot(time: Double(frame) / Double(sampleRate), engine: figures),
            frame: frame, window: window)
        builder.snapshot.buses = buses.map { bus in
            TelemetrySnapshot.Bus(
                name: bus.name, parent: bus.parent?.name, volume: Double(bus.volumeLocked),
                effectiveGain: Double(bus.effectiveGain(at: frame)), peakDB: TelemetryLevel.floorDB,
                rmsDB: TelemetryLevel.floorDB, muted: bus.isMutedLocked, soloed: bus.isSoloedLocked,
                paused: bus.isEffectivelyPaused)
        }
        builder.snapshot.parameters = gameParametersLocked.map { parameter in
            TelemetrySnapshot.Parameter(
                name: parameter.name, value: Double(parameter.valueLocked),
                current: Double(parameter.currentValueLocked), minimum: Double(parameter.range.lowerBound),
                maximum: Double(parameter.range.upperBound))
        }
        telemetryContributors.removeAll { $0.contributor == nil }
        for entry in telemetryContributors { entry.contributor?.contributeLocked(to: builder) }
        foldLevelsLocked(of: builder)
        monitoring.lastSnapshotFrame = frame
        monitoring.stepCPUNanoseconds = 0
        return builder.snapshot
    }

    /// Every bus's level: its own signals plus its children's, at any depth.
    /// Buses are few: each level is carried up its chain by index, with no
    /// dictionary, into totals on the stack (no allocation per snapshot).
    private func foldLevelsLocked(of builder: TelemetrySnapshotBuilder) {
        guard !builder.levels.isEmpty else { return }
        withUnsafeTemporaryAllocation(of: EngineMonitoring.LevelTotal.self, capacity: buses.count) { totals in
            totals.initialize(repeating: EngineMonitoring.LevelTotal())
            for entry in builder.levels {
                var bus: Bus? = buses.first { ObjectIdentifier($0) == entry.bus }
                while let b = bus {
                    if let index = buses.firstIndex(where: { $0 === b }) {
                        totals[index].meanSquare += entry.meanSquare
                        totals[index].peak += entry.peak
                        totals[index].reached = true
                    }
                    bus = b.parent
                }
            }
            for index in buses.indices where totals[index].reached && index < builder.snapshot.buses.count {
                let total = totals[index]
                builder.snapshot.buses[index].rmsDB = TelemetryLevel.decibels(meanSquare: total.meanSquare)
                builder.snapshot.buses[index].peakDB = TelemetryLevel.decibels(
                    peak: TelemetryLevel.peak(summed: total.peak, meanSquare: total.meanSquare))
            }
        }
    }

    /// The registered game parameters, in the order they were made.
    var gameParametersLocked: [GameParameter] {
        preconditionLocked()
        return components.compactMap { $0.component as? GameParameter }
    }

    // MARK: In the update step

    /// The update step's part, once its components have stepped: when a
    /// client asks for snapshots and one is due at `frame`, builds it and
    /// hands it to the server. One nil check when monitoring is off.
    ///
    /// The CPU figure: a device's update loop thread does nothing but step,
    /// so its whole CPU time is read once per snapshot (reading a thread's
    /// CPU clock is a system call, and a loop steps up to 200 times a
    /// second); a step on any other thread (an offline render's, which
    /// also mixes) is timed on its own, from `cpuStart`.
    ///
    /// - Parameters:
    ///   - frame: The step's engine frame.
    ///   - cpuStart: The thread's CPU time when the step began (0 on a
    ///     device's loop thread, which is timed whole), nil when no client asked.
    func publishTelemetryLocked(at frame: Int64, cpuStart: Int64?) {
        guard let server = telemetryServer else { return }
        guard let cpuStart else {
            monitoring.clientAsked = false
            monitoring.loopCPUStart = nil
            return
        }
        let rate = server.requestedRate
        let onLoop = isTimedWholeLocked
        if !monitoring.clientAsked {
            // A client came: the first snapshot's CPU figure covers this step only.
            monitoring.clientAsked = true
            monitoring.lastSnapshotFrame = max(0, frame - Int64(updateInterval))
            monitoring.stepCPUNanoseconds = 0
            monitoring.loopCPUStart = nil
        }
        if onLoop && monitoring.loopCPUStart == nil {
            monitoring.loopCPUStart = EngineMonitoring.threadCPUNanoseconds()
        }
        guard rate > 0, frame >= monitoring.nextSnapshotFrame else {
            if !onLoop { monitoring.stepCPUNanoseconds += EngineMonitoring.threadCPUNanoseconds() - cpuStart }
            return
        }
        let period = Int64(max(1, sampleRate / min(rate, TelemetryProtocol.maximumRate)))
        let dueFrame = monitoring.nextSnapshotFrame
        var next = dueFrame + period
        if next <= frame { next = frame + period }
        monitoring.nextSnapshotFrame = next
        // The clients' rates count in due times: a snapshot a step built late
        // is not early for the next one, which may come on time.
        let due = Double(max(dueFrame, frame - period)) / Double(sampleRate)
        let buildStart = EngineMonitoring.threadCPUNanoseconds()
        if onLoop, let start = monitoring.loopCPUStart {
            // The loop thread's time since the last snapshot; building this one is the next window's.
            monitoring.stepCPUNanoseconds += buildStart - start
            monitoring.loopCPUStart = buildStart
            server.publish(telemetrySnapshotLocked(), due: due)
            return
        }
        monitoring.stepCPUNanoseconds += buildStart - cpuStart
        server.publish(telemetrySnapshotLocked(), due: due)
        // Building it is the update thread's work too: the next window counts it.
        monitoring.stepCPUNanoseconds += EngineMonitoring.threadCPUNanoseconds() - buildStart
    }

    /// The thread's CPU time when an update step begins, while a client asks
    /// for snapshots; nil otherwise (one nil check when monitoring is off).
    /// On a device's loop thread, 0 without reading the clock: that thread is
    /// timed whole, once per snapshot (``publishTelemetryLocked(at:cpuStart:)``).
    var telemetryStepStartLocked: Int64? {
        guard let server = telemetryServer, server.requestedRate > 0 else { return nil }
        if isTimedWholeLocked { return 0 }
        return EngineMonitoring.threadCPUNanoseconds()
    }

    /// Whether this step runs on a device's update loop thread, whose CPU
    /// time is all update steps and is read once per snapshot.
    private var isTimedWholeLocked: Bool {
        guard case .device = output else { return false }
        return updateLoop.isCurrentThreadLocked
    }

    /// The earliest frame a render must step at: the next step with work
    /// (`nextStepDue`), or sooner a snapshot a monitor's client waits for
    /// (one nil check when monitoring is off).
    var nextStepOrSnapshotLocked: Int64? {
        guard let snapshot = nextTelemetryFrameLocked else { return nextStepDue }
        return min(nextStepDue ?? snapshot, snapshot)
    }

    /// The frame the next snapshot is due at, while a client asks for them; nil otherwise.
    var nextTelemetryFrameLocked: Int64? {
        guard let server = telemetryServer, server.requestedRate > 0 else { return nil }
        return monitoring.nextSnapshotFrame
    }

    /// The frame an update step must come by for the next snapshot, while a
    /// client asks for them; nil otherwise. Off a device, the frame it is due.
    /// On a device, up to a period later, less one update interval (and at
    /// least the mixer's buffer): any step that comes between anyway (a
    /// stream's refill, the device poll, a change the game made) builds it,
    /// so the update thread seldom wakes for a snapshot alone. Waking at the
    /// due frame itself cost a whole update step per snapshot and more: a
    /// device's clock moves a mix at a time, so a loop woken then found the
    /// clock short of it about half the time and woke again (three wakeups a
    /// snapshot, measured). The next is due a period after the due frame,
    /// not after the step, and the clients count in due times
    /// (``TelemetryServer/publish(_:due:)``), so the rate holds.
    var nextTelemetryWakeFrameLocked: Int64? {
        guard let server = telemetryServer else { return nil }
        let rate = server.requestedRate
        guard rate > 0 else { return nil }
        guard case .device(_, let latency) = output else { return monitoring.nextSnapshotFrame }
        let period = Int64(max(1, sampleRate / min(rate, TelemetryProtocol.maximumRate)))
        let late = max(period - Int64(updateInterval), min(Int64(latency.periodSize * latency.periods), period / 2))
        return monitoring.nextSnapshotFrame + late
    }
}

/// Levels as a monitor reads them.
enum TelemetryLevel {
    /// Silence, in dBFS.
    static let floorDB = -120.0

    /// A mean square as an RMS level in dBFS.
    static func decibels(meanSquare: Double) -> Double {
        meanSquare > 1e-12 ? max(floorDB, 10 * log10(meanSquare)) : floorDB
    }

    /// An amplitude in dBFS.
    static func decibels(peak: Double) -> Double {
        peak > 1e-6 ? max(floorDB, 20 * log10(peak)) : floorDB
    }

    /// The peak of signals played together, from the sum of their peaks: a
    /// bound that many signals would put far above full scale, so it is held
    /// at full scale (where OpenAL Soft's limiter holds the output), unless the
    /// RMS itself is above it.
    static func peak(summed: Double, meanSquare: Double) -> Double {
        max(min(summed, 1), meanSquare.squareRoot())
    }
}
