/// Why a line is not a drum pad command: one line a person can read and act on.
///
/// ``description`` names what was expected and quotes (a bounded, printable
/// excerpt of) what was typed.
public struct DrumpadCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Reason: Sendable, Hashable {
        /// The first word is no command.
        case unknownCommand(String)
        /// A command's arguments are wrong; `expected` is the usage.
        case badArguments(command: String, expected: String, got: String)
        /// The line is longer than ``DrumpadCommand/maximumLineLength``.
        case lineTooLong(Int)
    }

    let reason: Reason

    init(_ reason: Reason) { self.reason = reason }

    /// The command word the error is about, or nil when the word itself was not understood.
    public var command: String? {
        if case let .badArguments(command, _, _) = reason { return command }
        return nil
    }

    /// One line, no newline: what was expected and what was typed.
    public var description: String {
        switch reason {
        case let .unknownCommand(word):
            // Every command, so under 360 characters only with the typed word cut to 12 (the parser does).
            "unknown command \"\(word)\"; expected a pad (1-\(DrumpadCommand.Pad.allCases.count), "
                + DrumpadCommand.Pad.allCases.map(\.rawValue).joined(separator: ", ") + "), "
                + DrumpadCommand.commandWords.dropLast().joined(separator: ", ") + " or "
                + (DrumpadCommand.commandWords.last ?? "")
        case let .badArguments(command, expected, got):
            got.isEmpty ? "\(command): expected \(expected)" : "\(command): expected \(expected), got \"\(got)\""
        case let .lineTooLong(length):
            "line too long (\(length) bytes); a command is at most \(DrumpadCommand.maximumLineLength) bytes"
        }
    }
}
