import Foundation

extension AcousticsSuite {
    /// What the device scene with acoustics on did over every round.
    struct DeviceRun {
        /// The song's underruns, summed over the rounds.
        var underruns = 0
        /// Silences of 1 ms or more heard at the sink (the device underran), summed.
        var dropouts = 0
        /// Each round's CPU time of the child, in seconds.
        var cpu: [Double] = []
        /// The same scene without acoustics (the `device` suite's Backbeat side), in the same rounds:
        /// its song's underruns and its dropouts, summed.
        var underrunsOff = 0
        var dropoutsOff = 0
    }

    /// Plays the `device` suite's scene with acoustics on
    /// (``DeviceScene/playAcoustics(seconds:latency:song:)``) in `rounds`
    /// children of `seconds` each, at `.default`, on the device suite's
    /// private sound server (``DeviceSceneRunner``), another core busy and
    /// the sink's monitor recorded, as the `device` suite counts its underruns;
    /// and in each round, interleaved, the `device` suite's own Backbeat side
    /// (no level, the voices panned) for reference.
    ///
    /// - Parameters:
    ///   - seconds: Each round's length.
    ///   - rounds: How many rounds.
    ///   - log: Where each round's line goes.
    static func deviceRun(seconds: Int, rounds: Int, log: (String) -> Void) throws -> DeviceRun {
        let runner = try DeviceSceneRunner(seconds: seconds)
        defer { runner.stop() }
        let busy = BusyThread()
        defer { busy.stop() }
        var run = DeviceRun()
        for round in 1...rounds {
            for acoustics in round % 2 == 1 ? [true, false] : [false, true] {
                let recording = try runner.server.recordMonitor(of: runner.sink)
                let child = try runner.child(acoustics ? .acoustics : .backbeat)
                let gaps = DeviceScene.dropouts(try recording.stop())
                if acoustics {
                    run.underruns += child.result.underruns
                    run.dropouts += gaps.count
                    run.cpu.append(child.cpu)
                } else {
                    run.underrunsOff += child.result.underruns
                    run.dropoutsOff += gaps.count
                }
                log(
                    "round \(round), acoustics \(acoustics ? "on" : "off") at default, another core busy: "
                        + "\(child.result.underruns) music underruns, \(gaps.count) dropouts, "
                        + "\(String(format: "%.2f", child.cpu)) s CPU")
            }
        }
        return run
    }
}
