/// The server's other lines, written by hand as snapshots are
/// (`TelemetrySnapshot+JSON.swift`): keys are the Codable names, nil is `null`.
extension TelemetryHello {
    /// The hello as one JSON line, ending in `\n`.
    package var jsonLine: [UInt8] {
        var json = TelemetryJSONWriter(capacity: 128)
        json.beginObject()
        json.key("type")
        json.string(type)
        json.key("version")
        json.integer(version)
        json.key("pid")
        json.integer(pid)
        json.key("process")
        json.string(process)
        json.key("output")
        json.string(output)
        json.key("sampleRate")
        json.integer(sampleRate)
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
        json.key("type")
        json.string(type)
        json.key("time")
        json.number(time)
        json.key("event")
        json.string(event.rawValue)
        json.key("voice")
        if let voice { json.integer(voice) } else { json.null() }
        json.key("name")
        json.string(name)
        json.key("message")
        json.string(message)
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
        json.key("type")
        json.string(type)
        json.key("id")
        if let id { json.integer(id) } else { json.null() }
        json.key("message")
        json.string(message)
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
