/// Every suite, in the order `backbeat bench` runs them.
public enum BenchSuites {
    /// All suites. The soak suite runs in real time (10 minutes by default).
    public static let all: [any BenchSuite] = [MixSuite(), TriggerSuite(), DecodeSuite(), LibrarySuite(), SoakSuite()]
}
