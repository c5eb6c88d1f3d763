/// A snapshot as the line the server sends, written by hand: the server
/// encodes each snapshot once for all its clients, and this costs several
/// times less than `JSONEncoder` for 256 voices. The keys are the Codable
/// names and nil is `null`, so `JSONDecoder` reads it back to an equal value.
extension TelemetrySnapshot {
    /// The snapshot as one JSON line, ending in `\n`.
    package var jsonLine: [UInt8] {
        var line: [UInt8] = []
        writeJSONLine(into: &line)
        return line
    }

    /// Writes ``jsonLine`` into `line`, replacing what it held and reusing
    /// its storage: the server writes each snapshot into the array of the
    /// one before, which its clients have let go of once it was sent.
    ///
    /// - Parameter line: the array to write into.
    package func writeJSONLine(into line: inout [UInt8]) {
        writeJSONLine(into: &line) { json in
            for voice in voices { Self.write(voice, to: &json) }
        }
    }

    /// Writes ``jsonLine`` into `line` as ``writeJSONLine(into:)`` does, the
    /// voices' objects by `writeVoices` (``TelemetrySnapshotEncoder`` copies
    /// the unchanged ones from the line before).
    ///
    /// - Parameters:
    ///   - line: the array to write into.
    ///   - writeVoices: writes the elements of the `voices` array, in order.
    func writeJSONLine(into line: inout [UInt8], voices writeVoices: (inout TelemetryJSONWriter) -> Void) {
        var json = TelemetryJSONWriter(
            reusing: &line, capacity: 1024 + voices.count * 160 + buses.count * 160)
        defer { line = json.takeBytes() }
        json.beginObject()
        json.field("type", type)
        json.field("version", version)
        json.field("time", time)
        json.key("voices")
        json.beginArray()
        writeVoices(&json)
        json.endArray()
        json.field("voiceCounts", voiceCounts, as: Self.write)
        json.field("buses", buses, each: Self.write)
        json.field("parameters", parameters, each: Self.write)
        json.field("snapshots", snapshots, each: Self.write)
        json.field("music", music, each: Self.write)
        json.field("listener", listener, as: Self.write)
        json.field("engine", engine, as: Self.write)
        json.endObject()
        json.endLine()
    }

    /// Writes one voice's object.
    ///
    /// - Parameters:
    ///   - voice: the voice.
    ///   - json: the line being written.
    static func write(_ voice: Voice, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.field("id", voice.id)
        json.field("name", voice.name)
        json.field("bus", voice.bus)
        json.field("state", voice.state.rawValue)
        json.field("reason", voice.reason)
        json.field("gainDB", voice.gainDB)
        json.field("position", voice.point, as: Self.write)
        json.endObject()
    }

    /// `[x, y, z]`: the protocol's spelling of a position.
    private static func write(_ point: Voice.Point, to json: inout TelemetryJSONWriter) {
        json.beginArray()
        json.number(point.x)
        json.number(point.y)
        json.number(point.z)
        json.endArray()
    }

    private static func write(_ counts: VoiceCounts, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.field("playing", counts.playing)
        json.field("virtual", counts.virtual)
        json.field("dormant", counts.dormant)
        json.field("stopping", counts.stopping)
        json.field("unlisted", counts.unlisted)
        json.endObject()
    }

    private static func write(_ bus: Bus, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.field("name", bus.name)
        json.field("parent", bus.parent)
        json.field("volume", bus.volume)
        json.field("effectiveGain", bus.effectiveGain)
        json.field("peakDB", bus.peakDB)
        json.field("rmsDB", bus.rmsDB)
        json.field("muted", bus.muted)
        json.field("soloed", bus.soloed)
        json.field("paused", bus.paused)
        json.endObject()
    }

    private static func write(_ parameter: Parameter, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.field("name", parameter.name)
        json.field("value", parameter.value)
        json.field("current", parameter.current)
        json.field("minimum", parameter.minimum)
        json.field("maximum", parameter.maximum)
        json.endObject()
    }

    private static func write(_ snapshot: MixSnapshot, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.field("name", snapshot.name)
        json.field("active", snapshot.active)
        json.endObject()
    }

    private static func write(_ player: MusicPlayer, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.field("kind", player.kind)
        json.field("state", player.state)
        json.field("item", player.item)
        json.field("time", player.time)
        json.field("volume", player.volume)
        json.field("bus", player.bus)
        json.endObject()
    }

    private static func write(_ listener: Listener, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.field("position", listener.position)
        json.field("forward", listener.forward)
        json.endObject()
    }

    private static func write(_ engine: Engine, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.field("sourcesInUse", engine.sourcesInUse)
        json.field("sourcesTotal", engine.sourcesTotal)
        json.field("underruns", engine.underruns)
        json.field("updateCPUPercent", engine.updateCPUPercent)
        json.field("output", engine.output)
        json.field("sampleRate", engine.sampleRate)
        json.endObject()
    }
}

// The snapshot's own kinds of field, kept here beside their only user (the
// writer's other fields serve every line of the protocol).
extension TelemetryJSONWriter {
    /// Writes `"name":` and an array of `elements`, each written by `write`.
    ///
    /// - Parameters:
    ///   - name: the key, plain ASCII.
    ///   - elements: the array's elements.
    ///   - write: writes one element (a non-escaping function: nothing is allocated).
    fileprivate mutating func field<Element>(
        _ name: StaticString, _ elements: [Element], each write: (Element, inout Self) -> Void
    ) {
        key(name)
        beginArray()
        for element in elements { write(element, &self) }
        endArray()
    }

    /// Writes `"name":` and `value` as `write` writes it, or `null` for nil.
    ///
    /// - Parameters:
    ///   - name: the key, plain ASCII.
    ///   - value: the value or nil.
    ///   - write: writes the value (a non-escaping function: nothing is allocated).
    fileprivate mutating func field<Value>(
        _ name: StaticString, _ value: Value?, as write: (Value, inout Self) -> Void
    ) {
        key(name)
        if let value { write(value, &self) } else { null() }
    }
}
