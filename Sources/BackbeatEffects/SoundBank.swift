import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sound events defined in a small JSON file that a sound designer edits
/// without touching code: the sounds (by path relative to the bank), modes,
/// weights, random ranges, bus, 3D offset, cooldown and instances.
///
/// Loading checks the whole bank first and reports the first problem as one
/// line naming the file, the entry and the reason; then it makes the events
/// and preloads their sounds, in the bank's order, as far as the engine's
/// ``AudioEngine/effectCacheBudget`` allows (the rest load when first played).
/// The format is in the Events article of the documentation.
///
/// ```swift
/// let bank = try SoundBank(contentsOf: URL(fileURLWithPath: "Assets/sfx.bank.json"), engine: engine)
/// try await bank.preload()
/// bank["footstep"]?.play(position: feet)
/// ```
public final class SoundBank: @unchecked Sendable {
    // @unchecked: `state` is read and written under the engine lock (a reload
    // replaces it); the rest is immutable; the events and sounds guard their own state.

    /// What a valid bank holds, from ``check(contentsOf:)``.
    public struct Summary: Sendable, Equatable, CustomStringConvertible {
        /// One event: its name, mode and how many sounds it picks from.
        public struct Event: Sendable, Equatable {
            /// The event's name.
            public let name: String
            /// How it picks.
            public let mode: SoundEvent.PlaybackMode
            /// Its sounds.
            public let soundCount: Int
            /// The bus it plays on.
            public let bus: String
        }
        /// The events, in the bank's order.
        public let events: [Event]
        /// The distinct sound files the bank names (a file given two loop
        /// regions counts twice: it is two sounds, decoded twice).
        public let soundFileCount: Int
        /// Their decoded size, in bytes (what they take in the effect cache).
        public let decodedBytes: Int
        /// The buses the bank declares.
        public let buses: [String]

        /// One line per event after a line of totals.
        public var description: String {
            var lines = [
                "\(Self.count(events.count, "event")), \(Self.count(soundFileCount, "sound file")), "
                    + "\(Self.count(decodedBytes, "byte")) decoded"
                    + (buses.isEmpty ? "" : ", buses: \(buses.joined(separator: ", "))")
            ]
            for e in events {
                lines.append("  \(e.name): \(e.mode.rawValue), \(Self.count(e.soundCount, "sound")), bus \(e.bus)")
            }
            return lines.joined(separator: "\n")
        }

        /// "1 sound", "2 sounds".
        private static func count(_ n: Int, _ noun: String) -> String { n == 1 ? "1 \(noun)" : "\(n) \(noun)s" }
    }

    /// The bank file; a bank in an archive is `zip:///ARCHIVE:PATH`, one
    /// from bytes `memory:///NAME` (`Data`) or `source:///NAME`.
    public let url: URL
    /// The events, in the bank's order (as of its last reload).
    public var events: [SoundEvent] { locked { state.events } }
    /// Every distinct sound the bank names, in the bank's order.
    public var sounds: [SoundEffect] { locked { state.sounds } }
    /// The sounds loading since the bank was made (or last reloaded): those
    /// that fit in the effect cache budget, in the bank's order.
    public var preloadedSounds: [SoundEffect] { locked { state.preloaded } }
    /// The buses the bank declares, made on the engine unless given.
    public var buses: [Bus] { locked { state.buses } }

    /// What a reload replaces, under the engine lock.
    struct State {
        var events: [SoundEvent] = []
        var sounds: [SoundEffect] = []
        var preloaded: [SoundEffect] = []
        var buses: [Bus] = []
        /// Every bus an event may name: the engine's, the game's and the declared ones.
        var busByName: [String: Bus] = [:]
        var byName: [String: SoundEvent] = [:]
        /// Sounds by what identifies them (file and loop region): a reload keeps those it still names.
        var soundByKey: [String: SoundEffect] = [:]
        /// ``reloadsWhenChanged`` as the game set it (nil: follow the engine's monitoring).
        var followsFile: Bool?
        /// Events a reload removed, by name: ``event(named:)`` says so, and
        /// a reload that puts one back brings back the same object.
        var removed: [String: SoundEvent] = [:]
    }
    var state = State()
    weak var engine: AudioEngine?
    /// Whether the bank was read from a file it can follow.
    let isFile: Bool
    let broadcast = EventBroadcast<Event>()
    /// Where its definition came from, for a capture.
    let captureSource: BankCaptureSource
    /// Its id in the capture that last saw it (under the engine lock).
    var captureTag = CaptureTag()

    /// Loads a bank: checks it, makes its events and starts preloading their
    /// sounds within the cache budget (without waiting; see ``preload()``).
    /// Its sounds are the files it names, relative to the bank file's folder.
    ///
    /// - Parameters:
    ///   - url: the bank file.
    ///   - engine: the engine that plays the events.
    ///   - buses: the game's own buses, matched by name to those the bank
    ///     declares; declared buses not given are made, feeding the master bus.
    /// - Throws: ``BackbeatError/Code/invalidSoundBank`` naming the file, the
    ///   entry and the reason: unreadable or bad JSON (with its line when the
    ///   decoder gives it), an unknown key, mode or steal policy, a bad range
    ///   (min above max, not a number, out of bounds), a missing or unreadable
    ///   sound file, an unknown bus, a duplicate name, a sound larger than the
    ///   cache budget, a bad loop region (see the Events article).
    public convenience init(contentsOf url: URL, engine: AudioEngine, buses: [Bus] = []) throws {
        // Taken before reading: a file written during the load differs, and reloads.
        let fingerprint = url.isFileURL ? FileStamp(path: url.path) : nil
        let definition = try BankDefinition.load(url, budget: engine.effectCacheBudget)
        try self.init(
            definition: definition, url: url, engine: engine, buses: buses, source: .file(url), file: url.isFileURL,
            fingerprint: fingerprint)
    }

    /// Loads a bank that is an entry of a zip archive, with its sounds in the
    /// same archive, relative to the bank's folder inside it (a pack with
    /// `sfx/bank.json` naming `steps/grass1.ogg` plays `sfx/steps/grass1.ogg`).
    ///
    /// - Parameters:
    ///   - archive: the archive holding the bank and its sounds.
    ///   - path: the bank's path inside the archive, such as `sfx/bank.json`.
    ///   - engine: the engine that plays the events.
    ///   - buses: the game's own buses, as in ``init(contentsOf:engine:buses:)``.
    /// - Throws: ``BackbeatError/Code/invalidSoundBank`` naming the bank
    ///   (`zip:///ARCHIVE:PATH`), the entry and the reason, as
    ///   ``init(contentsOf:engine:buses:)``; a sound missing from the archive
    ///   names its path inside it.
    public convenience init(archive: AudioArchive, path: String, engine: AudioEngine, buses: [Bus] = []) throws {
        let (definition, url) = try BankDefinition.load(
            archive: archive, path: path, budget: engine.effectCacheBudget)
        try self.init(
            definition: definition, url: url, engine: engine, buses: buses,
            source: .archive(archive.url, path: path))
    }

    /// Loads a bank from its JSON bytes, with its sounds found by `resolver`
    /// (a folder, an archive, or the game's own asset system).
    ///
    /// - Parameters:
    ///   - source: the bank's JSON: `Data`, or any ``AudioByteSource``.
    ///   - name: what errors call the bank (`memory:///NAME` for `Data`, `source:///NAME` otherwise).
    ///   - resolver: where the sounds the bank names come from.
    ///   - engine: the engine that plays the events.
    ///   - buses: the game's own buses, as in ``init(contentsOf:engine:buses:)``.
    /// - Throws: ``BackbeatError/Code/invalidSoundBank``, as ``init(contentsOf:engine:buses:)``;
    ///   a sound the resolver does not have, or fails to give, names its path.
    public convenience init(
        source: any AudioByteSource, name: String = "bank.json", resolver: SoundResolver, engine: AudioEngine,
        buses: [Bus] = []
    ) throws {
        let url = BankDefinition.url(naming: source, name: name)
        let definition = try BankDefinition.load(
            source: source, url: url, resolver: resolver, budget: engine.effectCacheBudget)
        let origin: BankCaptureSource =
            if case .directory(let folder) = resolver.kind {
                .bytes(source, name: name, directory: folder)
            } else {
                .unreplayable(name: name, reason: "its sounds come from an archive or the game's own resolver")
            }
        try self.init(definition: definition, url: url, engine: engine, buses: buses, source: origin)
    }

    private init(
        definition: BankDefinition, url: URL, engine: AudioEngine, buses: [Bus], source: BankCaptureSource,
        file: Bool = false, fingerprint: FileStamp? = nil
    ) throws {
        let budget = engine.effectCacheBudget
        self.url = url
        self.engine = engine
        self.isFile = file
        captureSource = source
        var busByName: [String: Bus] = [
            engine.masterBus.name: engine.masterBus, engine.musicBus.name: engine.musicBus,
            engine.effectsBus.name: engine.effectsBus,
        ]
        var declared: [Bus] = []
        for name in definition.buses {
            let bus = buses.first { $0.name == name } ?? engine.makeBus(named: name)
            busByName[name] = bus
            declared.append(bus)
        }
        for bus in buses where busByName[bus.name] == nil { busByName[bus.name] = bus }
        var soundByKey: [String: SoundEffect] = [:]
        var sounds: [SoundEffect] = []
        var preloaded: [SoundEffect] = []
        var planned = 0
        for file in definition.files {
            let sound = SoundEffect(asset: file.asset, engine: engine)
            sound.bankKey = file.key
            soundByKey[file.key] = sound
            sounds.append(sound)
            if planned + file.bytes <= budget {
                planned += file.bytes
                preloaded.append(sound)
            }
        }
        var events: [SoundEvent] = []
        for e in definition.events {
            let sounds = e.sounds.map { soundByKey[$0.soundKey]! }
            let event = try SoundEvent(
                name: e.name, sounds: sounds, mode: e.mode, weights: e.sounds.map(\.weight), seed: e.seed)
            engine.withLock { event.applyLocked(e, sounds: sounds, bus: busByName[e.bus]) }
            events.append(event)
        }
        state = State(
            events: events, sounds: sounds, preloaded: preloaded, buses: declared, busByName: busByName,
            byName: Dictionary(uniqueKeysWithValues: events.map { ($0.name, $0) }), soundByKey: soundByKey)
        for event in events { event.bank = self }
        for sound in sounds { sound.bank = self }
        // A capture names the bank as it is made, so a replay makes its buses at the same point.
        engine.withLock { _ = captureIDLocked(engine) }
        if file {
            engine.withLock {
                engine.fileWatchLocked.registerLocked(
                    self, path: url.standardizedFileURL.path, fingerprint: fingerprint,
                    follows: engine.isServingMonitorsLocked)
            }
        }
        for sound in preloaded { sound.preloadUnrecorded() }
    }

    deinit {
        // Queued: the last release may come with the engine lock held.
        if isFile, let engine {
            let id = ObjectIdentifier(self)
            engine.performLocked { engine in engine.fileWatchLocked.unregisterLocked(id) }
        }
    }

    /// Runs `body` under the engine lock (without it once the engine is gone: nothing else changes the bank then).
    func locked<T>(_ body: () throws -> T) rethrows -> T {
        guard let engine else { return try body() }
        return try engine.withLock(waking: false, body)
    }

    /// The event named `name`, or nil.
    ///
    /// - Parameter name: The event's name in the bank.
    public subscript(name: String) -> SoundEvent? { locked { state.byName[name] } }

    /// Returns once the ``preloadedSounds`` are resident.
    ///
    /// - Throws: the first load that failed (a file that became unreadable,
    ///   a sound over a lowered budget).
    public func preload() async throws {
        for sound in preloadedSounds { try await sound.preload() }
    }

    /// Checks a bank without an engine: its JSON, entries, ranges, buses and
    /// sound files (each opened to read its header), against the default
    /// cache budget of 64 MiB.
    ///
    /// - Parameter url: The bank's JSON file; its sounds are found relative to it.
    /// - Returns: what the bank holds.
    /// - Throws: ``BackbeatError/Code/invalidSoundBank``, as ``init(contentsOf:engine:buses:)``.
    public static func check(contentsOf url: URL) throws -> Summary {
        summary(try BankDefinition.load(url, budget: checkBudget))
    }

    /// Checks a bank that is an entry of a zip archive, with its sounds in
    /// the archive, as ``init(archive:path:engine:buses:)`` reads it.
    ///
    /// - Parameters:
    ///   - archive: The zip archive holding the bank and its sounds.
    ///   - path: The bank's path inside the archive.
    /// - Returns: what the bank holds.
    /// - Throws: ``BackbeatError/Code/invalidSoundBank``, as ``init(archive:path:engine:buses:)``.
    public static func check(archive: AudioArchive, path: String) throws -> Summary {
        summary(try BankDefinition.load(archive: archive, path: path, budget: checkBudget).0)
    }

    /// Checks a bank's JSON bytes with its sounds found by `resolver`.
    ///
    /// - Parameters:
    ///   - source: The bank's JSON bytes.
    ///   - name: The name problems are reported under.
    ///   - resolver: Where the bank's sound paths are found.
    /// - Returns: what the bank holds.
    /// - Throws: ``BackbeatError/Code/invalidSoundBank``, as ``init(source:name:resolver:engine:buses:)``.
    public static func check(
        source: any AudioByteSource, name: String = "bank.json", resolver: SoundResolver
    ) throws -> Summary {
        let url = BankDefinition.url(naming: source, name: name)
        return summary(try BankDefinition.load(source: source, url: url, resolver: resolver, budget: checkBudget))
    }

    /// The budget a check measures sounds against: the engine's default.
    private static let checkBudget = 64 << 20

    private static func summary(_ d: BankDefinition) -> Summary {
        Summary(
            events: d.events.map { .init(name: $0.name, mode: $0.mode, soundCount: $0.sounds.count, bus: $0.bus) },
            soundFileCount: d.files.count, decodedBytes: d.files.reduce(0) { $0 + $1.bytes }, buses: d.buses)
    }
}

extension BackbeatError.Code {
    /// A sound bank file is unreadable or names something wrong; the reason says which entry and why.
    public static let invalidSoundBank = Self("invalid sound bank")
}
