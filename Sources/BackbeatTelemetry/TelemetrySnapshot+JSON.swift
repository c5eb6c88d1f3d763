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
        var json = TelemetryJSONWriter(
            reusing: &line, capacity: 1024 + voices.count * 160 + buses.count * 160)
        defer { line = json.takeBytes() }
        json.beginObject()
        json.field("type", type)
        json.field("version", version)
        json.field("time", time)
        json.key("voices")
        json.beginArray()
        for voice in voices { Self.write(voice, to: &json) }
        json.endArray()
        json.key("voiceCounts")
        json.beginObject()
        json.field("playing", voiceCounts.playing)
        json.field("virtual", voiceCounts.virtual)
        json.field("dormant", voiceCounts.dormant)
        json.field("stopping", voiceCounts.stopping)
        json.field("unlisted", voiceCounts.unlisted)
        json.endObject()
        json.key("buses")
        json.beginArray()
        for bus in buses { Self.write(bus, to: &json) }
        json.endArray()
        json.key("parameters")
        json.beginArray()
        for parameter in parameters {
            json.beginObject()
            json.field("name", parameter.name)
            json.field("value", parameter.value)
            json.field("current", parameter.current)
            json.field("minimum", parameter.minimum)
            json.field("maximum", parameter.maximum)
            json.endObject()
        }
        json.endArray()
        json.key("snapshots")
        json.beginArray()
        for snapshot in snapshots {
            json.beginObject()
            json.field("name", snapshot.name)
            json.field("active", snapshot.active)
            json.endObject()
        }
        json.endArray()
        json.key("music")
        json.beginArray()
        for player in music { Self.write(player, to: &json) }
        json.endArray()
        json.key("listener")
        if let listener {
            json.beginObject()
            json.field("position", listener.position)
            json.field("forward", listener.forward)
            json.endObject()
        } else {
            json.null()
        }
        json.key("engine")
        Self.write(engine, to: &json)
        json.endObject()
        json.endLine()
    }

    private static func write(_ voice: Voice, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.field("id", voice.id)
        json.field("name", voice.name)
        json.field("bus", voice.bus)
        json.field("state", voice.state.rawValue)
        json.field("reason", voice.reason)
        json.field("gainDB", voice.gainDB)
        json.key("position")
        if let p = voice.point {
            json.beginArray()
            json.number(p.x)
            json.number(p.y)
            json.number(p.z)
            json.endArray()
        } else {
            json.null()
        }
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
