/// One benchmark suite: measures Backbeat and its reference side by side, in
/// one run, and reports figures under stable names (`suite.figure`).
package protocol BenchSuite: Sendable {
    /// The suite's name on the command line and in JSON, such as `mix`.
    var name: String { get }
    /// One line saying what it compares.
    var summary: String { get }
    /// Runs the suite, logging progress lines through `log`.
    func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure]
}
