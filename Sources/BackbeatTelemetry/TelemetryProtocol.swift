/// The monitor protocol's constants. A game serves it on a Unix domain
/// socket; every line either way is one JSON object ending in `\n`.
///
/// Server to client: `{"type":"hello",...}` once on connecting, then
/// `"snapshot"` lines at the client's rate, `"event"` lines as things happen,
/// and one `"ok"` or `"error"` line per command. Client to server: one
/// ``TelemetryCommand`` per line.
package enum TelemetryProtocol {
    /// Bumped when a field changes meaning or goes away; new fields do not bump it.
    package static let version = 1
    /// Snapshots per second when a client does not ask for a rate.
    package static let defaultRate = 10
    /// The most snapshots per second a client may ask for.
    package static let maximumRate = 60
    /// A snapshot lists at most this many voices, the loudest; it counts the rest.
    package static let maximumListedVoices = 256
    /// The longest line a client may send, in bytes; a longer one is an error and closes the connection.
    package static let maximumCommandLength = 64 * 1024
}

/// The first line a game sends to a client that connects.
package struct TelemetryHello: Sendable, Codable, Equatable {
    package var type = "hello"
    package var version = TelemetryProtocol.version
    /// The game's process id.
    package var pid: Int32
    /// The game's process name.
    package var process: String
    /// `"offline"`, `"file"` or `"device"`.
    package var output: String
    package var sampleRate: Int

    package init(pid: Int32, process: String, output: String, sampleRate: Int) {
        self.pid = pid
        self.process = process
        self.output = output
        self.sampleRate = sampleRate
    }
}

/// Something that happened between snapshots (`"type": "event"`).
package struct TelemetryEvent: Sendable, Codable, Equatable {
    package var type = "event"
    /// Engine time in seconds.
    package var time: Double
    /// What happened (``Kind``).
    package var event: Kind
    /// The voice concerned, if any.
    package var voice: UInt64?
    /// The sound's file name or the event's name, the bus, the path that failed, and so on.
    package var name: String?
    /// One line for a person: the reason, the path.
    package var message: String?

    package init(time: Double, event: Kind, voice: UInt64? = nil, name: String? = nil, message: String? = nil) {
        self.time = time
        self.event = event
        self.voice = voice
        self.name = name
        self.message = message
    }

    /// The kinds of event line.
    package enum Kind: String, Sendable, Codable, Equatable, CaseIterable {
        case voiceStarted, voiceStopped, voiceStolen, voiceVirtual, voiceReal, voiceRefused
        case loadFailed, underrun, deviceLost, deviceChanged, bankReloaded, soundReloaded
        /// A bank or sound file changed but did not load; the old one stays. `message` is the file, line, column and reason.
        case reloadFailed
        /// Events were dropped because the client read too slowly; `message` says how many.
        case dropped
    }
}

/// A reply to one command: `{"type":"ok",...}` or `{"type":"error","message":...}`.
package struct TelemetryReply: Sendable, Codable, Equatable {
    /// `"ok"` or `"error"`.
    package var type: String
    /// The command's `id`, echoed, when it had one.
    package var id: Int?
    /// For an error, one line saying what was wrong; nothing was changed.
    package var message: String?
    /// For a `reload`, one line per bank or sound file reloaded or failed
    /// (nil for other commands; empty when no file had changed).
    package var lines: [String]?

    package static func ok(id: Int?) -> TelemetryReply { TelemetryReply(type: "ok", id: id, message: nil, lines: nil) }
    package static func error(_ message: String, id: Int?) -> TelemetryReply {
        TelemetryReply(type: "error", id: id, message: message, lines: nil)
    }
}
