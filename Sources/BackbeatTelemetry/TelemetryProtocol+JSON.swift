/// The server's other lines, written by hand as snapshots are
/// (`TelemetrySnapshot+JSON.swift`): keys are the Codable names, nil is `null`.
extension TelemetryHello {
    /// The hello as one JSON line, ending in `\n`.
    package var jsonLine: [UInt8] {
        var json = TelemetryJSONWriter(capacity: 128)
        json.beginObject()
        json.field("type", type)
        json.field("version", version)
        json.field("pid", pid)
        json.field("process", process)
        json.field("output", output)
        json.field("sampleRate", sampleRate)
        json.endObject()
        json.endLine()
        return json.bytes
    }
}

extension TelemetryEvent {
    /// The event as one JSON line, ending in `\n`.
    package var jsonLine: [UInt8] {
        var json = TelemetryJSONWriter(capacity: 128)
        json.beginObject()
        json.field("type", type)
        json.field("time", time)
        json.field("event", event.rawValue)
        json.field("voice", voice)
        json.field("name", name)
        json.field("message", message)
        json.endObject()
        json.endLine()
        return json.bytes
    }
}

extension TelemetryReply {
    /// The reply as one JSON line, ending in `\n`.
    package var jsonLine: [UInt8] {
        var json = TelemetryJSONWriter(capacity: 64)
        json.beginObject()
        json.field("type", type)
        json.field("id", id)
        json.field("message", message)
        if let lines {
            json.key("lines")
            json.beginArray()
            for line in lines { json.string(line) }
            json.endArray()
        }
        json.endObject()
        json.endLine()
        return json.bytes
    }
}
