import Foundation

/// One line a monitor client sends: `{"op": ..., "id": N, ...}`. `id` is
/// optional and echoed in the reply.
///
/// - `{"op":"rate","value":30}`: snapshots per second for this client (1...60).
/// - `{"op":"set","key":"bus.music.volume","value":0.5}`: one change
///   (``TelemetrySetting``); `value` may be a number, `true`/`false`, or a
///   string (`"0.5"`, `"on"`, `"off"`).
/// - `{"op":"reload"}`: reload every bank and sound whose file changed.
package struct TelemetryCommand: Sendable, Equatable {
    package var id: Int?
    package var action: Action

    package init(id: Int? = nil, action: Action) {
        self.id = id
        self.action = action
    }

    package enum Action: Sendable, Equatable {
        case rate(Int)
        case set(TelemetrySetting)
        case reload
    }

    /// Reads one line.
    ///
    /// - Parameter line: the line's bytes, without the newline.
    /// - Throws: ``TelemetryCommandError`` naming what is wrong; the command then changes nothing.
    package init(line: some Collection<UInt8>) throws(TelemetryCommandError) {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(line))
        } catch {
            throw TelemetryCommandError("not a JSON command object: \(Self.describe(error))")
        }
        switch wire.op {
        case "rate":
            guard let text = wire.value?.text, let rate = Int(text),
                (1...TelemetryProtocol.maximumRate).contains(rate)
            else {
                throw TelemetryCommandError("rate must be a whole number from 1 to \(TelemetryProtocol.maximumRate)")
            }
            self.init(id: wire.id, action: .rate(rate))
        case "set":
            guard let key = wire.key else { throw TelemetryCommandError("set needs a \"key\"") }
            guard let value = wire.value?.text else { throw TelemetryCommandError("set needs a \"value\"") }
            self.init(id: wire.id, action: .set(try TelemetrySetting(key: key, value: value)))
        case "reload":
            self.init(id: wire.id, action: .reload)
        case let op:
            throw TelemetryCommandError("unknown op \"\(op)\" (rate, set or reload)")
        }
    }

    /// The line that sends this command, without the newline.
    package var line: String {
        var object: [String: Any] = [:]
        if let id { object["id"] = id }
        switch action {
        case .rate(let rate):
            object["op"] = "rate"
            object["value"] = rate
        case .set(let setting):
            object["op"] = "set"
            object["key"] = setting.key
            object["value"] = setting.valueText
        case .reload:
            object["op"] = "reload"
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "missing \"\(key.stringValue)\""
        case DecodingError.typeMismatch(_, let context): context.debugDescription
        case DecodingError.dataCorrupted: "malformed JSON"
        default: "malformed JSON"
        }
    }

    private struct Wire: Decodable {
        var op: String
        var id: Int?
        var key: String?
        var value: WireValue?
    }

    private struct WireValue: Decodable {
        var text: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) {
                text = flag ? "on" : "off"
            } else if let number = try? container.decode(Double.self) {
                text = number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
            } else {
                text = try container.decode(String.self)
            }
        }
    }
}

/// One change a monitor may make, by the key the command line's `--set`
/// and the protocol's `set` share: `bus.NAME.volume=0.5`,
/// `bus.NAME.mute=on|off`, `bus.NAME.solo=on|off`, `parameter.NAME=0.8`,
/// `snapshot.NAME=on|off`, `voice.ID.stop=on`.
package enum TelemetrySetting: Sendable, Equatable {
    case busVolume(bus: String, volume: Float)
    case busMute(bus: String, muted: Bool)
    case busSolo(bus: String, soloed: Bool)
    case parameter(name: String, value: Float)
    case snapshot(name: String, active: Bool)
    case stopVoice(id: UInt64)

    /// Reads `KEY=VALUE`, as `--set` takes it.
    ///
    /// - Parameter assignment: such as `bus.music.volume=0.5`.
    /// - Throws: ``TelemetryCommandError`` naming what is wrong.
    package init(assignment: String) throws(TelemetryCommandError) {
        guard let equals = assignment.firstIndex(of: "=") else {
            throw TelemetryCommandError("expected KEY=VALUE, such as bus.music.volume=0.5")
        }
        try self.init(
            key: String(assignment[..<equals]), value: String(assignment[assignment.index(after: equals)...]))
    }

    /// Reads a key and its value.
    ///
    /// - Parameters:
    ///   - key: `bus.NAME.volume`, `bus.NAME.mute`, `bus.NAME.solo`, `parameter.NAME`, `snapshot.NAME` or `voice.ID.stop`.
    ///   - value: a number for volumes and parameters, `on` or `off` (or `true`, `false`, `1`, `0`) for the rest.
    /// - Throws: ``TelemetryCommandError`` naming what is wrong.
    package init(key: String, value: String) throws(TelemetryCommandError) {
        let value = value.trimmingCharacters(in: .whitespaces)
        if key.hasPrefix("bus."), let dot = key.lastIndex(of: "."), dot > key.index(key.startIndex, offsetBy: 3) {
            let bus = String(key[key.index(key.startIndex, offsetBy: 4)..<dot])
            guard !bus.isEmpty else { throw TelemetryCommandError("\(key): no bus name") }
            switch key[key.index(after: dot)...] {
            case "volume":
                guard let volume = Float(value), volume.isFinite, volume >= 0 else {
                    throw TelemetryCommandError("\(key): volume must be a number of 0 or more, not \"\(value)\"")
                }
                self = .busVolume(bus: bus, volume: volume)
            case "mute": self = .busMute(bus: bus, muted: try Self.flag(value, key: key))
            case "solo": self = .busSolo(bus: bus, soloed: try Self.flag(value, key: key))
            case let property:
                throw TelemetryCommandError("\(key): a bus has volume, mute and solo, not \"\(property)\"")
            }
        } else if key.hasPrefix("parameter."), key.count > 10 {
            guard let number = Float(value), number.isFinite else {
                throw TelemetryCommandError("\(key): a parameter's value must be a number, not \"\(value)\"")
            }
            self = .parameter(name: String(key.dropFirst(10)), value: number)
        } else if key.hasPrefix("snapshot."), key.count > 9 {
            self = .snapshot(name: String(key.dropFirst(9)), active: try Self.flag(value, key: key))
        } else if key.hasPrefix("voice."), key.hasSuffix(".stop"),
            let id = UInt64(key.dropFirst(6).dropLast(5))
        {
            guard try Self.flag(value, key: key) else {
                throw TelemetryCommandError("\(key): a voice can only be stopped (=on)")
            }
            self = .stopVoice(id: id)
        } else {
            throw TelemetryCommandError(
                "unknown key \"\(key)\" (bus.NAME.volume, bus.NAME.mute, bus.NAME.solo, parameter.NAME, snapshot.NAME, voice.ID.stop)"
            )
        }
    }

    /// The key this setting is sent under.
    package var key: String {
        switch self {
        case .busVolume(let bus, _): "bus.\(bus).volume"
        case .busMute(let bus, _): "bus.\(bus).mute"
        case .busSolo(let bus, _): "bus.\(bus).solo"
        case .parameter(let name, _): "parameter.\(name)"
        case .snapshot(let name, _): "snapshot.\(name)"
        case .stopVoice(let id): "voice.\(id).stop"
        }
    }

    /// The value this setting is sent with.
    package var valueText: String {
        switch self {
        case .busVolume(_, let volume): String(volume)
        case .busMute(_, let flag), .busSolo(_, let flag), .snapshot(_, let flag): flag ? "on" : "off"
        case .parameter(_, let value): String(value)
        case .stopVoice: "on"
        }
    }

    private static func flag(_ value: String, key: String) throws(TelemetryCommandError) -> Bool {
        switch value.lowercased() {
        case "on", "true", "1", "yes": return true
        case "off", "false", "0", "no": return false
        default: throw TelemetryCommandError("\(key): expected on or off, not \"\(value)\"")
        }
    }
}

/// A command a game could not take, with one line that says why.
package struct TelemetryCommandError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String

    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
