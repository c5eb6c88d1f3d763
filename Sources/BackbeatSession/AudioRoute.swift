/// Where the game's sound goes: an output such as speakers or headphones.
public struct AudioRoute: Sendable, Hashable, CustomStringConvertible {
    /// A human-readable name, such as `headphones` or an OpenAL device name.
    public var name: String

    /// Creates a route named `name`.
    ///
    /// - Parameter name: The output's name as the system shows it, such as `Headphones`.
    public init(name: String) { self.name = name }

    /// The system's default output, the route a session starts on.
    public static let defaultOutput = AudioRoute(name: "default output")

    public var description: String { name }
}
