import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// An engine on the default device follows the server's default output; one
/// opened on a named device stays there.
@Suite struct DeviceFollowDefaultTests {
    @Test(
        "soundServer: a sink is plugged in and made the default: an engine on the default device moves there with everything where it was, one on the old device by name stays"
    )
    func soundServerFollowsTheDefaultSink() throws {
        let server = try PrivateSoundServer(sinks: ["Backbeat-A"])
        defer { server.stop() }
        try withTemporaryDirectory { dir in
            let scene = try DeviceScene("follow", server: server, directory: dir)
            let playing = try #require(scene.line("playing"), "\(scene.all)")
            #expect(DeviceScene.value("following", in: playing) == "Backbeat-A")
            #expect(DeviceScene.value("named", in: playing) == "Backbeat-A")
            try server.addSink("Backbeat-B")
            #expect(server.sinks == ["Backbeat-A", "Backbeat-B"])
            let onA = try server.recordMonitor(of: "Backbeat-A")
            let onB = try server.recordMonitor(of: "Backbeat-B")
            try server.setDefaultSink("Backbeat-B")
            #expect(try server.defaultSink() == "Backbeat-B")
            scene.send("switched")
            let moved = scene.line("moved")
            let after = scene.line("after")
            let recordedA = try onA.stop()
            let recordedB = try onB.stop()
            scene.send("finish")
            let done = scene.line("done")
            #expect(scene.finish() == 0, "\(scene.all)")
            try #require(moved != nil && after != nil && done != nil, "\(scene.all)")
            #expect(DeviceScene.value("following", in: moved) == "Backbeat-B")
            // No further move, nothing lost, and the named engine never moved.
            #expect(DeviceScene.value("following", in: after) == "Backbeat-B")
            #expect(DeviceScene.value("named", in: after) == "Backbeat-A")
            #expect(DeviceScene.value("changes", in: after) == "1")
            #expect(DeviceScene.value("namedChanges", in: after) == "0")
            #expect(DeviceScene.value("lost", in: after) == "0")
            // Sources and buffers on the new device: as many as before the move.
            #expect(DeviceScene.value("sources", in: after) == DeviceScene.value("sources", in: playing))
            #expect(DeviceScene.value("buffers", in: after) == DeviceScene.value("buffers", in: playing))
            // A new default pauses nothing (unlike a lost device), and nothing started over.
            #expect(after?.contains("voice=playing loop=playing music=playing") == true, "\(after ?? "")")
            let voiceBefore = try #require(DeviceScene.number("voice", in: playing))
            let voiceMoved = try #require(DeviceScene.number("voice", in: moved))
            let voiceAfter = try #require(DeviceScene.number("voice", in: after))
            let musicMoved = try #require(DeviceScene.number("music", in: moved))
            let musicAfter = try #require(DeviceScene.number("music", in: after))
            #expect(voiceMoved >= voiceBefore && voiceAfter >= voiceMoved + 2.4)
            #expect(musicAfter >= musicMoved + 2.4)
            // At the end, Backbeat-A, the old default, hears only the named
            // engine's loop (2 kHz); Backbeat-B only the following engine's
            // loop (1 kHz), its voice and its music, at their places (their
            // tones rise with time), not from their beginnings.
            let tailA = SampleAnalysis.channel(Array(recordedA.suffix(48_000 * 2)), 0, of: 2)
            let tailB = SampleAnalysis.channel(Array(recordedB.suffix(48_000 * 2)), 0, of: 2)
            try #require(tailA.count == 48_000 && tailB.count == 48_000, "recordings too short")
            func level(_ samples: [Float], _ frequency: Double) -> Float {
                SampleAnalysis.level(of: samples, atFrequency: frequency, sampleRate: 48_000)
            }
            #expect(abs(level(tailA, 2_000) - 0.2) < 0.02, "\(level(tailA, 2_000))")
            #expect(level(tailA, 1_000) < 0.005, "\(level(tailA, 1_000))")
            #expect(abs(level(tailB, 1_000) - 0.2) < 0.02, "\(level(tailB, 1_000))")
            #expect(level(tailB, 2_000) < 0.005, "\(level(tailB, 2_000))")
            #expect(level(tailB, 440) > SceneLevels.voice(at: voiceMoved), "\(level(tailB, 440))")
            #expect(level(tailB, 440) < SceneLevels.voice(at: voiceAfter + 2) + 0.015, "\(level(tailB, 440))")
            #expect(level(tailB, 3_000) > SceneLevels.music(at: musicMoved), "\(level(tailB, 3_000))")
        }
    }
}
