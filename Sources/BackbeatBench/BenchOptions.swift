/// What a benchmark run was asked for on the command line.
package struct BenchOptions: Sendable {
    /// Rounds every side-by-side figure is measured over, unless asked otherwise.
    package static let defaultRounds = 5

    /// Tiny sizes, for tests and smoke runs.
    package var quick: Bool
    /// The soak suite's length in seconds of real time (nil: its default, 10 minutes).
    package var seconds: Double?
    /// Interleaved rounds per figure: each figure is their median, with their min and max.
    package var rounds: Int
    /// One figure to measure alone, for profiling it (a suite that knows the
    /// key measures only that figure; nil: every figure).
    package var only: String?

    /// Options for a run.
    package init(
        quick: Bool = false, seconds: Double? = nil, rounds: Int = BenchOptions.defaultRounds, only: String? = nil
    ) {
        self.quick = quick
        self.seconds = seconds
        self.rounds = max(1, rounds)
        self.only = only
    }
}
