import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
    static func load(_ url: URL, budget: Int, locator: BankLocator? = nil) throws -> BankDefinition {
        try loadWithText(url, budget: budget, locator: locator).definition
    }

    /// ``load(_:budget:locator:)``, also giving the text it read (what a
    /// capture keeps of a reload).
    static func loadWithText(_ url: URL, budget: Int, locator: BankLocator? = nil) throws -> (
        definition: BankDefinition, text: Data
    ) {
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
        let definition = try load(
            bytes: data, resolver: .directory(url.deletingLastPathComponent()), budget: budget, fail: fail,
            locator: locator)
        return (definition, data)
    }

    /// Parses and checks a bank's text as a replay gives it, its sounds in `folder`.
    ///
    /// - Parameters:
    ///   - text: The bank's JSON.
    ///   - url: What errors call the bank.
    ///   - folder: The folder its sound paths are relative to.
    ///   - budget: The effect cache budget sounds are measured against.
    static func load(text: Data, url: URL, folder: URL, budget: Int) throws -> BankDefinition {
        try load(
            bytes: text, resolver: .directory(folder), budget: budget,
            fail: { BackbeatError(.invalidSoundBank, operation: "SoundBank", url: url, reason: $0) })
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
        bytes data: Data, resolver: SoundBank.SoundResolver, budget: Int, fail: @escaping (String) -> BackbeatError,
        locator: BankLocator? = nil
    )
        throws -> BankDefinition
    {
        guard data.count <= maximumSize else { throw fail("the bank file is \(data.count) bytes (4 MiB at most)") }
        let root: BankJSON
        let bytes = Array(data)
        do {
            let parsed = try BankJSON.parseLocated(bytes)
            root = parsed.value
            locator?.parsed(bytes, offsets: parsed.offsets)
        } catch {
            locator?.at(line: error.line, column: error.column)
            throw fail("bad JSON: \(error.description)")
        }
        var definition = try parse(root, resolver: resolver, fail: fail, locator: locator)
        definition = try definition.measuringFiles(resolver: resolver, budget: budget, fail: fail, locator: locator)
        return definition
    }

    static func parse(
        _ root: BankJSON, resolver: SoundBank.SoundResolver, fail: @escaping (String) -> BackbeatError,
        locator: BankLocator? = nil
    )
        throws
        -> BankDefinition
    {
        guard case .object(let top) = root else { throw fail("the bank is \(root.kind), not an object") }
        for key in top.keys.sorted() where !["version", "buses", "events"].contains(key) {
            locator?.locate(key)
            throw fail(
                "unknown key \"\(key)\" at the top (version, buses, events)"
                    + BankDefinition.suggestion(for: key, among: ["version", "buses", "events"]))
        }
        if let version = top["version"] {
            guard case .number(1) = version else {
                locator?.locate("version")
                throw fail("version must be 1")
            }
        }
        var buses: [String] = []
        if let list = top["buses"] {
            locator?.locate("buses")
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
        locator?.locate("events")
        guard case .array(let items)? = top["events"] else { throw fail("\"events\" must be an array of events") }
        guard !items.isEmpty else { throw fail("the bank has no events") }
        var events: [Event] = []
        for (index, item) in items.enumerated() {
            locator?.locate("events.\(index)")
            guard case .object(let fields) = item else {
                throw fail("event #\(index + 1) is \(item.kind), not an object")
            }
            guard case .string(let name)? = fields["name"], !name.isEmpty else {
                throw fail("event #\(index + 1) has no \"name\"")
            }
            guard !events.contains(where: { $0.name == name }) else {
                locator?.locate("events.\(index).name")
                throw fail("duplicate event name \"\(name)\"")
            }
            let entry = EventReader(name: name, fields: fields, fail: fail, index: index, locator: locator)
            events.append(try entry.read(resolver: resolver, buses: defaultBuses + buses))
        }
        return BankDefinition(buses: buses, events: events, files: [])
    }

    /// Opens each distinct sound's header through `resolver`: it must be
    /// there, decode, be mono or stereo and fit in the cache budget.
    func measuringFiles(
        resolver: SoundBank.SoundResolver, budget: Int, fail: (String) -> BackbeatError, locator: BankLocator? = nil
    ) throws
        -> BankDefinition
    {
        var files: [File] = []
        var seen = Set<String>()
        for (eventIndex, event) in events.enumerated() {
            for (soundIndex, sound) in event.sounds.enumerated() where seen.insert(sound.soundKey).inserted {
                locator?.locate("events.\(eventIndex).sounds.\(soundIndex)")
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
    /// The event's place in the bank's list, and where problems are located.
    var index = 0
    var locator: BankLocator?

    func problem(_ field: String, _ reason: String) -> BackbeatError {
        locator?.locate("events.\(index).\(field)")
        return fail("event \"\(name)\": \(field): \(reason)")
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
            throw problem(
                field,
                "unknown key \"\(key)\" (start, end)" + BankDefinition.suggestion(for: key, among: ["start", "end"]))
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
        let start = try frames("start")
        let end = try frames("end")
        guard start < end else { throw problem(field, "start \(start) is not before end \(end)") }
        return try LoopPoints(start: start, end: end)
    }

    func read(resolver: SoundBank.SoundResolver, buses: [String]) throws -> BankDefinition.Event {
        for key in fields.keys.sorted() where !BankDefinition.eventKeys.contains(key) {
            throw problem(
                key, "unknown key" + BankDefinition.suggestion(for: key, among: BankDefinition.eventKeys.sorted()))
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
                    throw problem(
                        "sounds[\(i)]",
                        "unknown key \"\(key)\" (file, weight, loop)"
                            + BankDefinition.suggestion(for: key, among: ["file", "weight", "loop"]))
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
