/// What a benchmark run was asked for on the command line.
public struct BenchOptions: Sendable {
    /// Rounds every side-by-side figure is measured over, unless asked otherwise.
    public static let defaultRounds = 5

    /// Tiny sizes, for tests and smoke runs.
    public var quick: Bool
    /// The soak suite's length in seconds of real time (nil: its default, 10 minutes).
    public var seconds: Double?
    /// Interleaved rounds per figure: each figure is their median, with their min and max.
    public var rounds: Int
    /// One figure to measure alone, for profiling it (a suite that knows the
    /// key measures only that figure; nil: every figure).
    public var only: String?

    /// Options for a run.
    public init(
        quick: Bool = false, seconds: Double? = nil, rounds: Int = BenchOptions.defaultRounds, only: String? = nil
    ) {
        self.quick = quick
        self.seconds = seconds
        self.rounds = max(1, rounds)
        self.only = only
    }
}
