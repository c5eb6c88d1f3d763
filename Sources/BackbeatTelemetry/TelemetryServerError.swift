/// Why a game could not start serving the monitor socket, in one line that
/// names the path and the reason.
package struct TelemetryServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line a person reads.
    package var message: String

    /// An error saying `message`.
    ///
    /// - Parameter message: one line naming the path and what went wrong.
    package init(_ message: String) { self.message = message }

    package var description: String { message }
}
