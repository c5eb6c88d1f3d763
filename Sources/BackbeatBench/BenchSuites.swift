/// Every suite, in the order `backbeat bench` runs them.
public enum BenchSuites {
    /// All suites. The stream and soak suites run in real time (10 minutes each by default).
    public static let all: [any BenchSuite] = [
        MixSuite(), TriggerSuite(), DecodeSuite(), StreamSuite(), LibrarySuite(), SoakSuite(), DeviceSuite(),
        SpatialSuite(),
    ]
}
