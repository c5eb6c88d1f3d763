import BackbeatEngine

/// A D-Bus message as Swift values: its header fields and its decoded body.
struct DBusMessage: Sendable {
    enum Kind: Sendable, Equatable {
        case methodCall, methodReturn, error, signal, other
    }

    var kind: Kind
    var serial: UInt32 = 0
    var sender: String?
    var destination: String?
    var path: String?
    var interface: String?
    var member: String?
    var errorName: String?
    var body: [DBusValue] = []

    /// The first string of an error's body, its human-readable message.
    var errorMessage: String? { body.first?.string }
}

/// What an exported object answers to a method call.
enum DBusReply: Sendable {
    case values([DBusValue])
    case error(name: String, message: String)
    /// No answer now: the caller waits until its own timeout (a peer that hangs).
    case noReply

    static let ok = DBusReply.values([])

    static func unknownMethod(_ call: DBusMessage) -> DBusReply {
        .error(
            name: "org.freedesktop.DBus.Error.UnknownMethod",
            message: "no method \(call.interface ?? "").\(call.member ?? "")")
    }

    static func invalidArgs(_ message: String) -> DBusReply {
        .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }
}

/// A method call to make: where, what, and with which arguments.
struct DBusCall: Sendable {
    var destination: String
    var path: String
    var interface: String
    var member: String
    var arguments: [DBusValue] = []

    /// `destination path interface.member`, for errors.
    var description: String { "\(destination) \(path) \(interface).\(member)" }

    /// `org.freedesktop.DBus.Properties.Get(interface, name)`.
    static func getProperty(_ destination: String, path: String, interface: String, name: String) -> DBusCall {
        DBusCall(
            destination: destination, path: path, interface: DBusNames.properties, member: "Get",
            arguments: [.string(interface), .string(name)])
    }

    /// `org.freedesktop.DBus.Properties.GetAll(interface)`.
    static func getAllProperties(_ destination: String, path: String, interface: String) -> DBusCall {
        DBusCall(
            destination: destination, path: path, interface: DBusNames.properties, member: "GetAll",
            arguments: [.string(interface)])
    }

    /// `org.freedesktop.DBus.Properties.Set(interface, name, value)`.
    static func setProperty(
        _ destination: String, path: String, interface: String, name: String,
        value: DBusValue
    ) -> DBusCall {
        DBusCall(
            destination: destination, path: path, interface: DBusNames.properties, member: "Set",
            arguments: [.string(interface), .string(name), .variant(value)])
    }

    /// A call to the bus itself.
    static func bus(_ member: String, _ arguments: [DBusValue] = []) -> DBusCall {
        DBusCall(
            destination: DBusNames.bus, path: "/org/freedesktop/DBus", interface: DBusNames.bus,
            member: member, arguments: arguments)
    }
}

/// Well-known names of the bus and of MPRIS.
enum DBusNames {
    static let bus = "org.freedesktop.DBus"
    static let properties = "org.freedesktop.DBus.Properties"
    static let mprisPrefix = "org.mpris.MediaPlayer2."
    static let mprisPath = "/org/mpris/MediaPlayer2"
    static let mprisRoot = "org.mpris.MediaPlayer2"
    static let mprisPlayer = "org.mpris.MediaPlayer2.Player"
    static let mprisTrackList = "org.mpris.MediaPlayer2.TrackList"
}
