/// Why a monitor could not reach a game or read from it, in one line such as
/// "no process with PID 42" or "PID 42 (drumpad) is not monitoring: no socket at PATH".
package struct TelemetryClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line a person reads.
    package var message: String

    /// An error saying `message`.
    ///
    /// - Parameter message: one line naming the game or path and what went wrong.
    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
