/// What a benchmark run was asked for on the command line.
public struct BenchOptions: Sendable {
    /// Tiny sizes, for tests and smoke runs.
    public var quick: Bool
    /// The soak suite's length in seconds of real time (nil: its default, 10 minutes).
    public var seconds: Double?

    /// Options for a run.
    public init(quick: Bool = false, seconds: Double? = nil) {
        self.quick = quick
        self.seconds = seconds
    }
}
