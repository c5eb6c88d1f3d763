#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import BackbeatSupport
import BackbeatMedia
import BackbeatEngine

/// Sound events defined in a small JSON file that a sound designer edits
/// without touching code: the sounds (by path relative to the bank), modes,
/// weights, random ranges, bus, 3D offset, cooldown and instances.
///
/// Loading checks the whole bank first and reports the first problem as one
/// line naming the file, the entry and the reason; then it makes the events
/// and preloads their sounds, in the bank's order, as far as the engine's
/// ``AudioEngine/effectCacheBudget`` allows (the rest load when first played).
/// The format is in Docs/Events.md.
///
/// ```swift
/// let bank = try SoundBank(contentsOf: URL(fileURLWithPath: "Assets/sfx.bank.json"), engine: engine)
/// try await bank.preload()
/// bank["footstep"]?.play(position: feet)
/// ```
public final class SoundBank: @unchecked Sendable {
    // @unchecked: immutable after init; the events and sounds guard their own state.

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
                "\(events.count) events, \(soundFileCount) sound files, \(decodedBytes) bytes decoded"
                    + (buses.isEmpty ? "" : ", buses: \(buses.joined(separator: ", "))")
            ]
            for e in events { lines.append("  \(e.name): \(e.mode.rawValue), \(e.soundCount) sounds, bus \(e.bus)") }
            return lines.joined(separator: "\n")
        }
    }

    /// The bank file; a bank in an archive is `zip:///ARCHIVE:PATH`, one
    /// from bytes `memory:///NAME` (`Data`) or `source:///NAME`.
    public let url: URL
    /// The events, in the bank's order.
    public let events: [SoundEvent]
    /// Every distinct sound the bank names, in the bank's order.
    public let sounds: [SoundEffect]
    /// The sounds loading since the bank was made: those that fit in the
    /// effect cache budget, in the bank's order.
    public let preloadedSounds: [SoundEffect]
    /// The buses the bank declares, made on the engine unless given.
    public let buses: [Bus]
    private let byName: [String: SoundEvent]

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
    ///   cache budget, a bad loop region (see Docs/Events.md).
    public convenience init(contentsOf url: URL, engine: AudioEngine, buses: [Bus] = []) throws {
        let definition = try BankDefinition.load(url, budget: engine.effectCacheBudget)
        try self.init(definition: definition, url: url, engine: engine, buses: buses)
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
        try self.init(definition: definition, url: url, engine: engine, buses: buses)
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
        try self.init(definition: definition, url: url, engine: engine, buses: buses)
    }

    private init(definition: BankDefinition, url: URL, engine: AudioEngine, buses: [Bus]) throws {
        let budget = engine.effectCacheBudget
        self.url = url
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
        self.buses = declared
        var soundByKey: [String: SoundEffect] = [:]
        var sounds: [SoundEffect] = []
        var preloaded: [SoundEffect] = []
        var planned = 0
        for file in definition.files {
            let sound = SoundEffect(asset: file.asset, engine: engine)
            soundByKey[file.key] = sound
            sounds.append(sound)
            if planned + file.bytes <= budget {
                planned += file.bytes
                preloaded.append(sound)
            }
        }
        var events: [SoundEvent] = []
        for e in definition.events {
            let event = try SoundEvent(
                name: e.name, sounds: e.sounds.map { soundByKey[$0.soundKey]! }, mode: e.mode,
                weights: e.sounds.map(\.weight), seed: e.seed)
            event.soundLooping = e.sounds.map { $0.loop == nil ? .once : .forever }
            event.avoidRepeatingLast = e.avoidLast
            event.volume = e.volume
            event.randomization = e.randomization
            event.bus = busByName[e.bus]
            event.cooldown = e.cooldown
            event.maximumInstances = e.maximumInstances
            event.stealPolicy = e.steal
            event.priority = e.priority
            events.append(event)
        }
        self.sounds = sounds
        self.preloadedSounds = preloaded
        self.events = events
        self.byName = Dictionary(uniqueKeysWithValues: events.map { ($0.name, $0) })
        for sound in preloaded { sound.preload { _ in } }
    }

    /// The event named `name`, or nil.
    public subscript(name: String) -> SoundEvent? { byName[name] }

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
    /// - Returns: what the bank holds.
    /// - Throws: ``BackbeatError/Code/invalidSoundBank``, as ``init(contentsOf:engine:buses:)``.
    public static func check(contentsOf url: URL) throws -> Summary {
        summary(try BankDefinition.load(url, budget: checkBudget))
    }

    /// Checks a bank that is an entry of a zip archive, with its sounds in
    /// the archive, as ``init(archive:path:engine:buses:)`` reads it.
    ///
    /// - Returns: what the bank holds.
    /// - Throws: ``BackbeatError/Code/invalidSoundBank``, as ``init(archive:path:engine:buses:)``.
    public static func check(archive: AudioArchive, path: String) throws -> Summary {
        summary(try BankDefinition.load(archive: archive, path: path, budget: checkBudget).0)
    }

    /// Checks a bank's JSON bytes with its sounds found by `resolver`.
    ///
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

// MARK: - Reading and checking a bank

/// A parsed JSON value (the bank is read into these, then checked field by field).
enum BankJSON {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([BankJSON])
    case object([String: BankJSON])

    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// A JSON syntax error: what, and the line and column where it was found.
    struct SyntaxError: Error {
        let message: String
        let line: Int
        let column: Int
        var description: String { "\(message) at line \(line), column \(column)" }
    }

    /// Parses strict JSON (RFC 8259): the platform decoder does not say where
    /// a file goes wrong, and a sound designer needs the line. Nesting is
    /// bounded, and so is everything else by the input's size.
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> BankJSON {
        var parser = Parser(bytes: bytes)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the end") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        func error(_ message: String) -> SyntaxError {
            var line = 1, column = 1
            for b in bytes[..<min(index, bytes.count)] {
                if b == UInt8(ascii: "\n") { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
            }
            return SyntaxError(message: message, line: line, column: column)
        }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let b = peek, b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { index += 1 }
        }

        mutating func expect(_ literal: String, _ value: BankJSON) throws(SyntaxError) -> BankJSON {
            for b in literal.utf8 {
                guard peek == b else { throw error("unexpected character in \"\(literal)\"") }
                index += 1
            }
            return value
        }

        mutating func value(depth: Int) throws(SyntaxError) -> BankJSON {
            guard depth < 64 else { throw error("nested more than 64 deep") }
            guard let b = peek else { throw error("unexpected end of file") }
            switch b {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
            default: throw error("unexpected character \"\(Character(Unicode.Scalar(b)))\"")
            }
        }

        mutating func object(depth: Int) throws(SyntaxError) -> BankJSON {
            index += 1
            var fields: [String: BankJSON] = [:]
            skipSpace()
            if peek == UInt8(ascii: "}") { index += 1; return .object(fields) }
            while true {
                skipSpace()
                guard peek == UInt8(ascii: "\"") else { throw error("expected a key in quotes") }
                let keyStart = index
                let key = try string()
                guard fields[key] == nil else {
                    index = keyStart
                    throw error("duplicate key \"\(key)\"")
                }
                skipSpace()
                guard peek == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
                index += 1
                skipSpace()
                fields[key] = try value(depth: depth + 1)
                skipSpace()
                if peek == UInt8(ascii: ",") { index += 1; continue }
                if peek == UInt8(ascii: "}") { index += 1; return .object(fields) }
                throw error("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> BankJSON {
            index += 1
            var items: [BankJSON] = []
            skipSpace()
            if peek == UInt8(ascii: "]") { index += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                if peek == UInt8(ascii: ",") { index += 1; continue }
                if peek == UInt8(ascii: "]") { index += 1; return .array(items) }
                throw error("expected ',' or ']'")
            }
        }

        mutating func number() throws(SyntaxError) -> BankJSON {
            let start = index
            if peek == UInt8(ascii: "-") { index += 1 }
            func digits(_ p: inout Parser) -> Int {
                var n = 0
                while let b = p.peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { p.index += 1; n += 1 }
                return n
            }
            guard digits(&self) > 0 else { throw error("bad number") }
            if peek == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw error("bad number") }
            }
            if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
                index += 1
                if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw error("bad number") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let n = Double(text), n.isFinite else {
                index = start
                throw error("number \(text) is out of range")
            }
            return .number(n)
        }

        mutating func string() throws(SyntaxError) -> String {
            index += 1
            var out: [UInt8] = []
            while true {
                guard let b = peek else { throw error("unterminated string") }
                index += 1
                switch b {
                case UInt8(ascii: "\""):
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let e = peek else { throw error("unterminated string") }
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard index + 4 <= bytes.count,
                            let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                        else { throw error("bad \\u escape") }
                        index += 4
                        // Lone surrogates become U+FFFD; a bank's names and paths do not need pairs.
                        let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                        out += Array(String(Character(scalar)).utf8)
                    default:
                        index -= 1
                        throw error("bad escape")
                    }
                case 0..<0x20:
                    index -= 1
                    throw error("control character in a string")
                default:
                    out.append(b)
                }
            }
        }
    }
}

/// A checked bank: what ``SoundBank`` makes its events from.
struct BankDefinition {
    struct Sound {
        let path: String
        /// What the resolver makes of the path: the same key is the same file.
        let key: String
        let weight: Double
        /// The loop region its `"loop"` names (nil: none; the file's tags apply).
        let loop: LoopPoints?
        /// What identifies the sound: the same file with the same loop region.
        var soundKey: String { loop.map { "\(key)\u{0}loop \($0)" } ?? key }
    }

    struct Event {
        let name: String
        let mode: SoundEvent.PlaybackMode
        let sounds: [Sound]
        let avoidLast: Int
        let volume: Float
        let randomization: SoundEvent.Randomization
        let bus: String
        let cooldown: MediaTime
        let maximumInstances: Int?
        let steal: SoundEvent.StealPolicy
        let priority: Int
        let seed: UInt64
    }

    struct File {
        let key: String
        let asset: AudioAsset
        let bytes: Int
    }

    let buses: [String]
    let events: [Event]
    /// Distinct sound files in the bank's order, with their decoded sizes.
    let files: [File]

    static let eventKeys: Set<String> = [
        "name", "mode", "sounds", "avoidLast", "volume", "volumeDecibels", "pitchCents", "pan", "positionOffset",
        "startDelay", "bus", "cooldown", "maxInstances", "steal", "priority", "seed",
    ]
    static let defaultBuses = ["master", "music", "effects"]

    /// Reads, parses and checks the bank at `url`, opening each sound file's header.
    static func load(_ url: URL, budget: Int) throws -> BankDefinition {
        func fail(_ reason: String) -> BackbeatError {
            BackbeatError(.invalidSoundBank, operation: "SoundBank", url: url, reason: reason)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let missing = !FileManager.default.fileExists(atPath: url.path)
            throw fail(missing ? "the bank file does not exist" : "the bank file cannot be read")
        }
        return try load(
            bytes: data, resolver: .directory(url.deletingLastPathComponent()), budget: budget, fail: fail)
    }

    /// Reads the bank entry `path` of `archive`, its sounds resolved in the
    /// archive beside it; returns the bank and the name it goes by.
    static func load(archive: AudioArchive, path: String, budget: Int) throws -> (BankDefinition, URL) {
        let url = AudioAsset.url(scheme: "zip", name: archive.url.path + ":" + path)
        func fail(_ reason: String) -> BackbeatError {
            BackbeatError(.invalidSoundBank, operation: "SoundBank", url: url, reason: reason)
        }
        let source: any AudioByteSource
        do {
            source = try archive.source(path: path)
        } catch let error as BackbeatError {
            throw fail(
                error.code == .entryNotFound
                    ? "the bank entry is not in the archive \(archive.url.path)" : describe(error))
        }
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let bytes = try readAll(source, url: url, fail: fail)
        let resolver = SoundBank.SoundResolver.archive(archive, directory: folder)
        return (try load(bytes: bytes, resolver: resolver, budget: budget, fail: fail), url)
    }

    /// Reads a bank's JSON from `source`, named `url`, its sounds from `resolver`.
    static func load(source: any AudioByteSource, url: URL, resolver: SoundBank.SoundResolver, budget: Int) throws
        -> BankDefinition
    {
        func fail(_ reason: String) -> BackbeatError {
            BackbeatError(.invalidSoundBank, operation: "SoundBank", url: url, reason: reason)
        }
        return try load(
            bytes: try readAll(source, url: url, fail: fail), resolver: resolver, budget: budget, fail: fail)
    }

    /// The name a bank read from bytes goes by.
    static func url(naming source: any AudioByteSource, name: String) -> URL {
        AudioAsset.url(scheme: source is Data ? "memory" : "source", name: name)
    }

    /// A bank is small: at most this many bytes of JSON.
    static let maximumSize = 4 << 20

    /// All of `source`'s bytes, checked (its size bounded, its reads held to it).
    static func readAll(_ source: any AudioByteSource, url: URL, fail: (String) -> BackbeatError) throws -> Data {
        let reader: ByteSourceReader
        do {
            reader = try ByteSourceReader(source: source, url: url)
        } catch let error as BackbeatError {
            throw fail(error.code == .emptyFile ? "the bank is empty" : "the bank cannot be read: \(describe(error))")
        }
        guard reader.size <= Int64(maximumSize) else {
            throw fail("the bank file is \(reader.size) bytes (4 MiB at most)")
        }
        do {
            return Data(try reader.bytes(at: 0, count: Int(reader.size)))
        } catch let error as BackbeatError {
            throw fail("the bank cannot be read: \(describe(error))")
        }
    }

    /// An error's code and reason, for a bank's one line.
    static func describe(_ error: BackbeatError) -> String {
        "\(error.code)\(error.reason.map { ", \($0)" } ?? "")"
    }

    /// Parses and checks a bank's bytes, opening each sound's header through `resolver`.
    static func load(
        bytes data: Data, resolver: SoundBank.SoundResolver, budget: Int, fail: @escaping (String) -> BackbeatError
    )
        throws -> BankDefinition
    {
        guard data.count <= maximumSize else { throw fail("the bank file is \(data.count) bytes (4 MiB at most)") }
        let root: BankJSON
        do {
            root = try BankJSON.parse(Array(data))
        } catch {
            throw fail("bad JSON: \(error.description)")
        }
        var definition = try parse(root, resolver: resolver, fail: fail)
        definition = try definition.measuringFiles(resolver: resolver, budget: budget, fail: fail)
        return definition
    }

    static func parse(_ root: BankJSON, resolver: SoundBank.SoundResolver, fail: @escaping (String) -> BackbeatError)
        throws
        -> BankDefinition
    {
        guard case .object(let top) = root else { throw fail("the bank is \(root.kind), not an object") }
        for key in top.keys.sorted() where !["version", "buses", "events"].contains(key) {
            throw fail("unknown key \"\(key)\" at the top (version, buses, events)")
        }
        if let version = top["version"] {
            guard case .number(1) = version else { throw fail("version must be 1") }
        }
        var buses: [String] = []
        if let list = top["buses"] {
            guard case .array(let items) = list else { throw fail("buses must be an array of names") }
            for item in items {
                guard case .string(let name) = item, !name.isEmpty else {
                    throw fail("buses: \(item.kind) is not a bus name")
                }
                guard !buses.contains(name), !defaultBuses.contains(name) else {
                    throw fail("buses: duplicate bus \"\(name)\"")
                }
                buses.append(name)
            }
        }
        guard case .array(let items)? = top["events"] else { throw fail("\"events\" must be an array of events") }
        guard !items.isEmpty else { throw fail("the bank has no events") }
        var events: [Event] = []
        for (index, item) in items.enumerated() {
            guard case .object(let fields) = item else {
                throw fail("event #\(index + 1) is \(item.kind), not an object")
            }
            guard case .string(let name)? = fields["name"], !name.isEmpty else {
                throw fail("event #\(index + 1) has no \"name\"")
            }
            guard !events.contains(where: { $0.name == name }) else { throw fail("duplicate event name \"\(name)\"") }
            let entry = EventReader(name: name, fields: fields, fail: fail)
            events.append(try entry.read(resolver: resolver, buses: defaultBuses + buses))
        }
        return BankDefinition(buses: buses, events: events, files: [])
    }

    /// Opens each distinct sound's header through `resolver`: it must be
    /// there, decode, be mono or stereo and fit in the cache budget.
    func measuringFiles(resolver: SoundBank.SoundResolver, budget: Int, fail: (String) -> BackbeatError) throws
        -> BankDefinition
    {
        var files: [File] = []
        var seen = Set<String>()
        for event in events {
            for sound in event.sounds where seen.insert(sound.soundKey).inserted {
                let prefix = "event \"\(event.name)\": sound \"\(sound.path)\""
                let asset = try resolver.asset(key: sound.key, loopPoints: sound.loop) { fail("\(prefix): \($0)") }
                let decoder: any AudioDecoder
                do { decoder = try AudioDecoders.open(asset) } catch let error as BackbeatError {
                    throw fail("\(prefix): \(BankDefinition.describe(error))")
                }
                defer { decoder.close() }
                guard (1...2).contains(decoder.channelCount) else {
                    throw fail("\(prefix): \(decoder.channelCount) channels (mono or stereo only)")
                }
                let frames = min(max(0, decoder.frameCount), Int64(Int32.max))
                if let loop = sound.loop, loop.start >= frames {
                    // The rule SoundEffect(loopPoints:) applies: the region must start inside
                    // the sound; an end past the sound's end is moved to the end.
                    throw fail(
                        "\(prefix): loop: start \(loop.start) is not before the sound's end (\(frames) frames)")
                }
                let bytes = Int(frames) * decoder.channelCount * MemoryLayout<Float>.size
                guard bytes <= budget else {
                    throw fail("\(prefix): \(bytes) bytes decoded, more than the cache budget of \(budget)")
                }
                files.append(File(key: sound.soundKey, asset: asset, bytes: bytes))
            }
        }
        return BankDefinition(buses: buses, events: events, files: files)
    }
}

/// Reads one event's fields, naming the event in every complaint.
private struct EventReader {
    let name: String
    let fields: [String: BankJSON]
    let fail: (String) -> BackbeatError

    func problem(_ field: String, _ reason: String) -> BackbeatError {
        fail("event \"\(name)\": \(field): \(reason)")
    }

    func number(_ key: String, in bounds: ClosedRange<Double>) throws -> Double? {
        guard let value = fields[key] else { return nil }
        guard case .number(let n) = value else { throw problem(key, "\(value.kind), not a number") }
        guard bounds.contains(n) else {
            throw problem(key, "\(n) is outside \(bounds.lowerBound)...\(bounds.upperBound)")
        }
        return n
    }

    func integer(_ key: String, in bounds: ClosedRange<Double>) throws -> Int? {
        guard let n = try number(key, in: bounds) else { return nil }
        guard n == n.rounded() else { throw problem(key, "\(n) is not a whole number") }
        return Int(n)
    }

    /// A `[min, max]` pair within `bounds`.
    func range(_ key: String, in bounds: ClosedRange<Double>) throws -> ClosedRange<Double>? {
        guard let value = fields[key] else { return nil }
        guard case .array(let pair) = value, pair.count == 2, case .number(let lo) = pair[0],
            case .number(let hi) = pair[1]
        else { throw problem(key, "must be [min, max], two numbers") }
        guard !lo.isNaN, !hi.isNaN else { throw problem(key, "not a number (NaN)") }
        guard lo <= hi else { throw problem(key, "min \(lo) is above max \(hi)") }
        guard bounds.contains(lo), bounds.contains(hi) else {
            throw problem(key, "[\(lo), \(hi)] is outside \(bounds.lowerBound)...\(bounds.upperBound)")
        }
        return lo...hi
    }

    func choice<T: RawRepresentable & CaseIterable>(_ key: String, default value: T) throws -> T
    where T.RawValue == String {
        guard let field = fields[key] else { return value }
        let names = T.allCases.map(\.rawValue).joined(separator: ", ")
        guard case .string(let raw) = field else { throw problem(key, "\(field.kind), not one of \(names)") }
        guard let parsed = T(rawValue: raw) else { throw problem(key, "unknown \(key) \"\(raw)\" (\(names))") }
        return parsed
    }

    /// A sound's `{"start": N, "end": N}` loop region: whole frames, 0 <= start < end
    /// (checked against the sound's length once its header is read).
    func loopPoints(_ value: BankJSON, field: String) throws -> LoopPoints {
        guard case .object(let o) = value else {
            throw problem(field, "\(value.kind), not {\"start\": frames, \"end\": frames}")
        }
        for key in o.keys.sorted() where key != "start" && key != "end" {
            throw problem(field, "unknown key \"\(key)\" (start, end)")
        }
        func frames(_ key: String) throws -> Int64 {
            guard case .number(let n)? = o[key] else {
                throw problem(field, "\"\(key)\" must be a whole number of frames")
            }
            guard n == n.rounded(), n >= 0, n <= 9_007_199_254_740_991 else {
                throw problem(field, "\(key) \(n) is not a whole number of frames in 0...2^53-1")
            }
            return Int64(n)
        }
        let start = try frames("start"), end = try frames("end")
        guard start < end else { throw problem(field, "start \(start) is not before end \(end)") }
        return try LoopPoints(start: start, end: end)
    }

    func read(resolver: SoundBank.SoundResolver, buses: [String]) throws -> BankDefinition.Event {
        for key in fields.keys.sorted() where !BankDefinition.eventKeys.contains(key) {
            throw problem(key, "unknown key")
        }
        let mode = try choice("mode", default: SoundEvent.PlaybackMode.random)
        guard case .array(let list)? = fields["sounds"], !list.isEmpty else {
            throw problem("sounds", "must be a non-empty array of files")
        }
        var sounds: [BankDefinition.Sound] = []
        for (i, item) in list.enumerated() {
            let path: String
            var weight = 1.0
            var loop: LoopPoints?
            switch item {
            case .string(let p):
                path = p
            case .object(let o):
                guard case .string(let p)? = o["file"] else { throw problem("sounds[\(i)]", "has no \"file\"") }
                path = p
                if let w = o["weight"] {
                    guard case .number(let n) = w, n.isFinite, n >= 0, n <= 1e6 else {
                        throw problem("sounds[\(i)]", "weight must be a number in 0...1000000")
                    }
                    weight = n
                }
                if let l = o["loop"] { loop = try loopPoints(l, field: "sounds[\(i)]: loop") }
                for key in o.keys.sorted() where !["file", "weight", "loop"].contains(key) {
                    throw problem("sounds[\(i)]", "unknown key \"\(key)\" (file, weight, loop)")
                }
            default:
                throw problem("sounds[\(i)]", "\(item.kind), not a file path or {\"file\", \"weight\", \"loop\"}")
            }
            guard !path.isEmpty else { throw problem("sounds[\(i)]", "empty path") }
            let key = try resolver.key(path: path) { problem("sounds[\(i)]", "\"\(path)\": \($0)") }
            sounds.append(.init(path: path, key: key, weight: weight, loop: loop))
        }
        guard sounds.contains(where: { $0.weight > 0 }) else { throw problem("sounds", "every weight is 0") }
        var bus = "effects"
        if let field = fields["bus"] {
            guard case .string(let b) = field else { throw problem("bus", "\(field.kind), not a bus name") }
            guard buses.contains(b) else {
                throw problem(
                    "bus", "unknown bus \"\(b)\" (\(buses.joined(separator: ", ")); declare others in \"buses\")")
            }
            bus = b
        }
        var offset = Audio3DPoint.zero
        if let field = fields["positionOffset"] {
            guard case .array(let xyz) = field, xyz.count == 3 else {
                throw problem("positionOffset", "must be [x, y, z], three numbers of metres")
            }
            var values: [Float] = []
            for v in xyz {
                guard case .number(let n) = v, n >= 0, n <= 10_000 else {
                    throw problem("positionOffset", "each of x, y, z must be a number in 0...10000")
                }
                values.append(Float(n))
            }
            offset = Audio3DPoint(x: values[0], y: values[1], z: values[2])
        }
        func floats(_ r: ClosedRange<Double>?) -> ClosedRange<Float>? {
            r.map { Float($0.lowerBound)...Float($0.upperBound) }
        }
        let delay = try range("startDelay", in: 0...60) ?? 0...0
        let randomization = SoundEvent.Randomization(
            volumeDecibels: floats(try range("volumeDecibels", in: -120...24)) ?? 0...0,
            pitchCents: floats(try range("pitchCents", in: -1200...1200)) ?? 0...0,
            pan: floats(try range("pan", in: -1...1)) ?? 0...0,
            positionOffset: offset,
            startDelay: MediaTime(seconds: delay.lowerBound)...MediaTime(seconds: delay.upperBound))
        let seed: UInt64
        if let s = try integer("seed", in: 0...9_007_199_254_740_991) {
            seed = UInt64(s)
        } else {
            // A stable default from the name (FNV-1a), so renders repeat without one.
            seed = name.utf8.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
        return BankDefinition.Event(
            name: name, mode: mode, sounds: sounds, avoidLast: try integer("avoidLast", in: 0...1_000) ?? 0,
            volume: Float(try number("volume", in: 0...1) ?? 1), randomization: randomization, bus: bus,
            cooldown: MediaTime(seconds: try number("cooldown", in: 0...3_600) ?? 0),
            maximumInstances: try integer("maxInstances", in: 1...1_024),
            steal: try choice("steal", default: SoundEvent.StealPolicy.oldest),
            priority: try integer("priority", in: -1_000_000...1_000_000) ?? 0, seed: seed)
    }
}
