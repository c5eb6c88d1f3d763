/// Every suite, in the order `backbeat bench` runs them.
package enum BenchSuites {
    /// All suites. The stream and soak suites run in real time (10 minutes each by default).
    package static let all: [any BenchSuite] = [
        MixSuite(), TriggerSuite(), DecodeSuite(), StreamSuite(), LibrarySuite(), SoakSuite(), DeviceSuite(),
        SpatialSuite(), MonitorSuite(), CaptureSuite(), AcousticsSuite(),
    ]
}
