import Backbeat
import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Renders a capture again, offline: opens an engine like the captured one,
/// then, record by record, renders up to the frame at which the record took
/// effect and makes the same call the game made.
///
/// Each module's records are applied in its own extension
/// (`Replayer+Engine.swift`, `+Effects`, `+Music`, `+Session`, `+Reload`),
/// which keeps the objects it makes in ``objects`` under their capture ids.
package final class Replayer {
    /// What to render of the capture.
    package struct Options: Sendable {
        /// Engine seconds (from the capture's start) before which nothing is written.
        package var from: Double?
        /// Engine seconds after which rendering stops.
        package var to: Double?
        /// The one bus to hear (the others are silenced by soloing it).
        package var soloBus: String?
        /// Whether to render between records; false applies every record at
        /// once, rendering nothing (the fuzzer: every decoder reached, no audio).
        package var rendersAudio: Bool

        /// Options.
        ///
        /// - Parameters:
        ///   - from: Seconds before which nothing is written.
        ///   - to: Seconds after which rendering stops.
        ///   - soloBus: The one bus to hear.
        ///   - rendersAudio: Whether to render between records.
        package init(from: Double? = nil, to: Double? = nil, soloBus: String? = nil, rendersAudio: Bool = true) {
            self.from = from
            self.to = to
            self.soloBus = soloBus
            self.rendersAudio = rendersAudio
        }
    }

    /// How a replay ended.
    package struct Result: Sendable {
        /// Frames written to the output (or rendered, without one).
        package var framesWritten: Int64
        /// Frames rendered in all, from the capture's start.
        package var framesRendered: Int64
        /// Where and why the capture's records stopped early; nil when it ended whole.
        package var damage: String?
        /// Whether the capture has its end record (it was stopped or the engine shut down).
        package var ended: Bool
        /// Whether the replay stopped at `--to`, before the capture's end
        /// (its end record, if any, was not read).
        package var stoppedAtTo: Bool
    }

    /// The capture's opening: the engine it was made on.
    package let opening: CaptureOpening
    /// The engine the replay renders with (offline, at the capture's rate and channels).
    package let engine: AudioEngine
    /// The options.
    package let options: Options
    /// What the replay made, by capture id: sounds, buses, events, players…
    package var objects: [UInt32: AnyObject] = [:]
    /// Voices by the id the captured engine gave them.
    package var voices: [UInt64: AnyObject] = [:]
    /// The one-line-per-second timeline (`--summary`).
    package private(set) var summary = ReplaySummary()
    /// Where warnings go (a sound whose content changed since the capture): one line each.
    package var warn: (String) -> Void = { _ in }

    /// The effects' records' state between records (Replayer+EffectsVoices.swift).
    let effectsReplay = EffectsReplayState()

    private let reader: CaptureFileReader
    private var ended = false
    private var shutDown = false
    /// Whether `--solo`'s bus was found, and how many objects the last search saw.
    private var soloFound = false
    private var objectsSearchedForSolo = 0

    /// Opens the capture at `url` and an engine like the captured one.
    ///
    /// - Parameters:
    ///   - url: The capture file.
    ///   - options: What to render.
    /// - Throws: What ``CaptureFileReader/init(url:)`` throws;
    ///   ``BackbeatError/Code/notACapture`` when the first record is not an opening.
    package init(url: URL, options: Options = Options()) throws {
        reader = try CaptureFileReader(url: url)
        guard let first = reader.next(), first.kind == .open else {
            throw BackbeatError(
                .notACapture, operation: "replay", url: url,
                reason: reader.damage.map { "nothing whole before the damage: \($0)" }
                    ?? "it holds no engine opening (the game stopped before the first half second was written?)")
        }
        var decoder = first.decoder
        do {
            opening = try CaptureOpening(from: &decoder)
        } catch {
            throw BackbeatError(.notACapture, operation: "replay", url: url, reason: "its opening record: \(error)")
        }
        self.options = options
        engine = try AudioEngine(
            output: .offline(sampleRate: opening.sampleRate, channels: opening.channelCount),
            maximumVoices: opening.maximumVoices)
        if let solo = options.soloBus { soloBusIfMade(solo) }
    }

    /// The capture's start frame: replay frames count from the original engine's opening.
    package var startFrame: Int64 { opening.startFrame }

    /// Replays the whole capture (or `from`…`to`), writing what it renders to
    /// `output` as 32-bit float WAV. On an error nothing is left at `output`.
    ///
    /// - Parameter output: The WAV to write, or nil to render without one (`--summary`).
    /// - Returns: How it ended.
    /// - Throws: A ``BackbeatError`` naming the record that could not be replayed
    ///   (a missing sound names it and its path in the capture).
    package func run(writingTo output: URL?) throws -> Result {
        let writer = try output.map {
            try SoundFileWriter(
                url: $0, type: .wavFloat, sampleRate: opening.sampleRate, channelCount: opening.channelCount,
                overwrite: true)
        }
        var sink = RenderSink(
            writer: writer, channels: opening.channelCount, rate: opening.sampleRate,
            start: startFrame, options: options)
        var damage: String?
        var reachedTo = false
        do {
            var lastApplied = startFrame
            while let record = reader.next() {
                if sink.isPastEnd(record.frame) {
                    reachedTo = true
                    break
                }
                try render(to: record.frame, into: &sink)
                summary.at(seconds: seconds(of: record.frame))
                if record.kind == .end {
                    ended = true
                    lastApplied = record.frame
                    break
                }
                do {
                    try apply(record)
                } catch let error as BackbeatError where error.code == .captureDamaged {
                    // A record that makes no sense is damage, like a block that
                    // fails its check: what came before it stands.
                    damage = error.reason ?? "\(error.code)"
                    break
                }
                lastApplied = record.frame
                if let solo = options.soloBus, !soloFound, objects.count != objectsSearchedForSolo {
                    soloBusIfMade(solo)
                }
            }
            if damage == nil, let readerDamage = reader.damage {
                damage = "at \(ReplaySummary.format(seconds: seconds(of: lastApplied))) s, \(readerDamage)"
            }
            // The capture ends at its end record, or at its last whole record
            // when cut short; `--to` past that renders no further.
            if !sink.isDone { try render(to: reachedTo ? .max : lastApplied, into: &sink) }
            if options.rendersAudio, let from = options.from, sink.framesWritten == 0 {
                throw BackbeatError(
                    .invalidArgument, operation: "replay",
                    reason: "--from \(ReplaySummary.format(seconds: from)) s is past the capture's end, "
                        + "\(ReplaySummary.format(seconds: seconds(of: lastApplied))) s")
            }
            if let solo = options.soloBus, !soloFound {
                throw BackbeatError(
                    .invalidArgument, operation: "replay",
                    reason: "--solo: the capture has no bus named \"\(solo)\" (\(busNames.joined(separator: ", ")))")
            }
            try writer?.finish()
        } catch {
            writer?.cancel()
            shutDownEngine()
            throw error
        }
        shutDownEngine()
        return Result(
            framesWritten: sink.framesWritten, framesRendered: sink.renderedTo - startFrame, damage: damage,
            ended: ended, stoppedAtTo: reachedTo)
    }

    /// Shuts the replay's engine down once the sound loads under way have
    /// ended: a replay stopped by damage just after a play would otherwise
    /// shut the engine under its load, which logs a failed load for nothing.
    private func shutDownEngine() {
        engine.backgroundLoads.waitUntilIdle()
        engine.shutdown()
    }

    /// The names of every bus the replay knows, each once: the engine's and
    /// those the capture made (a game's bus may share a name with the engine's).
    private var busNames: [String] {
        var seen: Set<String> = []
        return allBuses.map(\.name).filter { seen.insert($0).inserted }
    }

    private var allBuses: [Bus] {
        [engine.masterBus, engine.musicBus, engine.effectsBus] + objects.values.compactMap { $0 as? Bus }
    }

    /// Seconds from the capture's start to `frame`.
    ///
    /// - Parameter frame: An engine frame of the captured session.
    package func seconds(of frame: Int64) -> Double {
        Double(frame - startFrame) / Double(opening.sampleRate)
    }

    /// Notes something for the `--summary` timeline, in the current second.
    ///
    /// - Parameter event: What happened, such as `voice snare`.
    package func note(_ event: String) { summary.note(event) }

    private func render(to frame: Int64, into sink: inout RenderSink) throws {
        guard options.rendersAudio else { return }
        try sink.render(engine: engine, to: frame)
    }

    /// Applies one record, by the module that owns its kind.
    private func apply(_ record: CaptureRecord) throws {
        let raw = record.kind.rawValue
        switch raw {
        case CaptureKind.engineRange: try applyEngine(record)
        case CaptureKind.effectsRange: try applyEffects(record)
        case CaptureKind.musicRange: try applyMusic(record)
        case CaptureKind.sessionRange: try applySession(record)
        case CaptureKind.reloadRange: try applyReload(record)
        default: skipUnknown(record)
        }
    }

    /// A record this build does not know: skipped with one warning per kind.
    ///
    /// - Parameter record: The record.
    package func skipUnknown(_ record: CaptureRecord) {
        guard unknownKinds.insert(record.kind).inserted else { return }
        warn("skipping records of kind \(record.kind), unknown to this build")
    }
    private var unknownKinds: Set<CaptureKind> = []

    /// A payload that does not decode: the error to throw, naming the record.
    ///
    /// - Parameters:
    ///   - record: The record.
    ///   - error: What the decoder found.
    package func damaged(_ record: CaptureRecord, _ error: any Error) -> BackbeatError {
        BackbeatError(
            .captureDamaged, operation: "replay",
            reason: "at \(ReplaySummary.format(seconds: seconds(of: record.frame))) s, record \(record.kind): \(error)")
    }

    /// The object with capture id `id`, as `T`.
    ///
    /// - Parameters:
    ///   - id: Its capture id.
    ///   - type: Its type.
    ///   - record: The record that names it, for the error.
    /// - Throws: When no object of that type has that id.
    package func object<T: AnyObject>(_ id: UInt32, as type: T.Type, in record: CaptureRecord) throws -> T {
        guard let object = objects[id] as? T else {
            throw damaged(record, CaptureFormatError.malformed("no \(T.self) with capture id \(id)"))
        }
        return object
    }

    /// Solos the bus named `name` once it exists (the engine's own, or when a record makes it).
    ///
    /// - Parameter name: The bus's name.
    package func soloBusIfMade(_ name: String) {
        objectsSearchedForSolo = objects.count
        for bus in allBuses where bus.name == name {
            bus.isSoloed = true
            soloFound = true
        }
    }

    /// The shutdown the capture ends with: its fade is rendered like the original's.
    func markShutDown() { shutDown = true }
}
