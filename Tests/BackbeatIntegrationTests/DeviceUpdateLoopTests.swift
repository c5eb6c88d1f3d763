import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// A device's update loop sleeps until the next thing is due instead of
/// waking every update period, and still does what is due on time.
@Suite struct DeviceUpdateLoopTests {
    @Test(
        "soundServer: in a steady scene (17 endless loops, a voice, a song) the update loop wakes far fewer times than there are update periods, and a one-shot played on the sleeping loop still completes at its end"
    )
    func soundServerUpdateLoopSleepsUntilSomethingIsDue() throws {
        let server = try PrivateSoundServer(sinks: ["Backbeat-Idle"])
        defer { server.stop() }
        try withTemporaryDirectory { dir in
            let scene = try DeviceScene("idle", server: server, directory: dir)
            let line = scene.line("idle")
            let done = scene.line("done")
            #expect(scene.finish() == 0, "\(scene.all)")
            try #require(line != nil && done != nil, "\(scene.all)")
            let frames = try #require(DeviceScene.number("frames", in: line))
            let steps = try #require(DeviceScene.number("steps", in: line))
            let update = try #require(DeviceScene.number("update", in: line))
            let late = try #require(DeviceScene.number("late", in: line))
            // Over a second of engine time there are 200 update periods; the
            // stream's buffers (one every 83 ms), the loops' wrap checks
            // (gathered onto shared wakeups) and the 100-ms device poll need
            // about 25. Waking every period fails, and so does waking for each
            // loop's check on its own (about 60).
            let periods = frames / update
            #expect(periods >= 200)
            #expect(steps <= periods / 4, "\(steps) wakeups over \(periods) update periods: \(line ?? "")")
            // The 0.3-s one-shot completed, reaped after its end (the mixer runs
            // a device latency ahead of engine time) and within 50 ms.
            #expect(late > -2_400 && late <= 2_400, "completion \(late) frames after its end")
            #expect(line?.contains("loop=playing") == true, "\(line ?? "")")
        }
    }

    @Test(
        "soundServer: a mix snapshot's transition wakes the sleeping update loop every period until it ends, then lets it sleep"
    )
    func soundServerSnapshotTransitionStepsEveryPeriod() throws {
        let server = try PrivateSoundServer(sinks: ["Backbeat-Snapshot"])
        defer { server.stop() }
        try withTemporaryDirectory { dir in
            let scene = try DeviceScene("snapshot", server: server, directory: dir)
            let line = scene.line("snapshot")
            #expect(scene.finish() == 0, "\(scene.all)")
            try #require(line != nil, "\(scene.all)")
            let frames = try #require(DeviceScene.number("frames", in: line))
            let steps = try #require(DeviceScene.number("steps", in: line))
            let update = try #require(DeviceScene.number("update", in: line))
            let after = try #require(DeviceScene.number("after", in: line))
            let afterFrames = try #require(DeviceScene.number("afterframes", in: line))
            // 100 update periods in the half second: the loop steps in nearly
            // all of them (a third leaves room for a loaded machine or the
            // thread sanitizer; it stepped 6 times, on the 100-ms poll, when
            // bus transitions ignored snapshots); afterwards the poll alone.
            let periods = frames / update
            #expect(steps >= periods / 3, "\(steps) steps over \(periods) periods: \(line ?? "")")
            #expect(after <= afterFrames / update / 4, "\(after) steps after the transition: \(line ?? "")")
        }
    }
}
