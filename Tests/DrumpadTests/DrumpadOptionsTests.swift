import Backbeat
import DrumpadCore
import Testing

/// The drum pad's command-line options that decide how it plays.
@Suite struct DrumpadOptionsTests {
    @Test("on a sound device the drum pad opens the default device at .low, unless --latency says otherwise")
    func deviceOutputIsLowLatencyUnlessAsked() throws {
        #expect(try DrumpadOptions(arguments: []).deviceOutput == .device(latency: .low))
        #expect(DrumpadOptions().deviceOutput == .device(latency: .low))
        #expect(
            try DrumpadOptions(arguments: ["--latency", "default"]).deviceOutput == .device(latency: .default))
        #expect(try DrumpadOptions(arguments: ["--latency", "safe", "--seed", "3"]).latency == .safe)
        #expect(try DrumpadOptions(arguments: ["--latency", "low"]).latency == .low)
    }

    @Test("--latency with a word it does not know, or no word, says what it expects")
    func badLatencySaysWhatItExpects() {
        let unknown = #expect(throws: DrumpadOptionsError.self) {
            try DrumpadOptions(arguments: ["--latency", "fast"])
        }
        #expect(unknown?.description == "--latency expects low, default or safe, got \"fast\"")
        let missing = #expect(throws: DrumpadOptionsError.self) { try DrumpadOptions(arguments: ["--latency"]) }
        #expect(missing?.description == "--latency needs a value")
    }

    @Test(".low buffers at most 10 ms at 48 kHz, the most a drummer does not hear as late")
    func lowPresetIsWithinTenMilliseconds() {
        let span = AudioEngine.OutputLatency.low.duration(atSampleRate: 48_000)
        #expect(span <= MediaTime(value: 10, timescale: 1_000), "\(AudioEngine.OutputLatency.low)")
        #expect(AudioEngine.OutputLatency.low.periodSize * AudioEngine.OutputLatency.low.periods <= 480)
    }
}

/// `--monitor`: the flag, and the usage line that tells of it.
@Suite struct DrumpadMonitorOptionTests {
    @Test("--monitor turns monitoring on; it is off by default, and the usage names it")
    func monitorFlag() throws {
        #expect(try DrumpadOptions(arguments: ["--monitor"]).monitor)
        #expect(try !DrumpadOptions(arguments: ["--mpris"]).monitor)
        #expect(DrumpadOptions.usage.contains("--monitor"))
    }
}

/// `--capture FILE`: the flag, its value, and the usage line that tells of it.
@Suite struct DrumpadCaptureOptionTests {
    @Test("--capture FILE names the capture; it is off by default, needs a value, and the usage names it")
    func captureOption() throws {
        #expect(
            try DrumpadOptions(arguments: ["--capture", "session.bbcap"]).capture?.lastPathComponent == "session.bbcap")
        #expect(try DrumpadOptions(arguments: []).capture == nil)
        let missing = #expect(throws: DrumpadOptionsError.self) { try DrumpadOptions(arguments: ["--capture"]) }
        #expect(missing?.description == "--capture needs a value")
        #expect(DrumpadOptions.usage.contains("--capture FILE"))
    }
}
