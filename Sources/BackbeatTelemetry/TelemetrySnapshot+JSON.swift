/// A snapshot as the line the server sends, written by hand: the server
/// encodes each snapshot once for all its clients, and this costs several
/// times less than `JSONEncoder` for 256 voices. The keys are the Codable
/// names and nil is `null`, so `JSONDecoder` reads it back to an equal value.
extension TelemetrySnapshot {
    /// The snapshot as one JSON line, ending in `\n`.
    package var jsonLine: [UInt8] {
        var json = TelemetryJSONWriter(capacity: 1024 + voices.count * 160 + buses.count * 160)
        json.beginObject()
        json.key("type")
        json.string(type)
        json.key("version")
        json.integer(version)
        json.key("time")
        json.number(time)
        json.key("voices")
        json.beginArray()
        for voice in voices { Self.write(voice, to: &json) }
        json.endArray()
        json.key("voiceCounts")
        json.beginObject()
        json.key("playing")
        json.integer(voiceCounts.playing)
        json.key("virtual")
        json.integer(voiceCounts.virtual)
        json.key("dormant")
        json.integer(voiceCounts.dormant)
        json.key("stopping")
        json.integer(voiceCounts.stopping)
        json.key("unlisted")
        json.integer(voiceCounts.unlisted)
        json.endObject()
        json.key("buses")
        json.beginArray()
        for bus in buses { Self.write(bus, to: &json) }
        json.endArray()
        json.key("parameters")
        json.beginArray()
        for parameter in parameters {
            json.beginObject()
            json.key("name")
            json.string(parameter.name)
            json.key("value")
            json.number(parameter.value)
            json.key("current")
            json.number(parameter.current)
            json.key("minimum")
            json.number(parameter.minimum)
            json.key("maximum")
            json.number(parameter.maximum)
            json.endObject()
        }
        json.endArray()
        json.key("snapshots")
        json.beginArray()
        for snapshot in snapshots {
            json.beginObject()
            json.key("name")
            json.string(snapshot.name)
            json.key("active")
            json.bool(snapshot.active)
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
            json.key("position")
            json.numbers(listener.position)
            json.key("forward")
            json.numbers(listener.forward)
            json.endObject()
        } else {
            json.null()
        }
        json.key("engine")
        Self.write(engine, to: &json)
        json.endObject()
        json.endLine()
        return json.bytes
    }

    private static func write(_ voice: Voice, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.key("id")
        json.integer(voice.id)
        json.key("name")
        json.string(voice.name)
        json.key("bus")
        json.string(voice.bus)
        json.key("state")
        json.string(voice.state.rawValue)
        json.key("reason")
        json.string(voice.reason)
        json.key("gainDB")
        json.number(voice.gainDB)
        json.key("position")
        json.numbers(voice.position)
        json.endObject()
    }

    private static func write(_ bus: Bus, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.key("name")
        json.string(bus.name)
        json.key("parent")
        json.string(bus.parent)
        json.key("volume")
        json.number(bus.volume)
        json.key("effectiveGain")
        json.number(bus.effectiveGain)
        json.key("peakDB")
        json.number(bus.peakDB)
        json.key("rmsDB")
        json.number(bus.rmsDB)
        json.key("muted")
        json.bool(bus.muted)
        json.key("soloed")
        json.bool(bus.soloed)
        json.key("paused")
        json.bool(bus.paused)
        json.endObject()
    }

    private static func write(_ player: MusicPlayer, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.key("kind")
        json.string(player.kind)
        json.key("state")
        json.string(player.state)
        json.key("item")
        json.string(player.item)
        json.key("time")
        json.number(player.time)
        json.key("volume")
        json.number(player.volume)
        json.key("bus")
        json.string(player.bus)
        json.endObject()
    }

    private static func write(_ engine: Engine, to json: inout TelemetryJSONWriter) {
        json.beginObject()
        json.key("sourcesInUse")
        json.integer(engine.sourcesInUse)
        json.key("sourcesTotal")
        json.integer(engine.sourcesTotal)
        json.key("underruns")
        json.integer(engine.underruns)
        json.key("updateCPUPercent")
        json.number(engine.updateCPUPercent)
        json.key("output")
        json.string(engine.output)
        json.key("sampleRate")
        json.integer(engine.sampleRate)
        json.endObject()
    }
}
