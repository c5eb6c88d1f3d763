import Testing

@testable import BackbeatTelemetry

@Suite struct TelemetryCommandTests {
    @Test(arguments: [
        ("bus.music.volume=0.5", TelemetrySetting.busVolume(bus: "music", volume: 0.5)),
        ("bus.ui.sfx.mute=on", .busMute(bus: "ui.sfx", muted: true)),
        ("bus.music.solo=off", .busSolo(bus: "music", soloed: false)),
        ("parameter.speed=0.8", .parameter(name: "speed", value: 0.8)),
        ("snapshot.pause=on", .snapshot(name: "pause", active: true)),
        ("voice.42.stop=on", .stopVoice(id: 42)),
    ])
    func readsAssignments(_ text: String, _ expected: TelemetrySetting) throws {
        #expect(try TelemetrySetting(assignment: text) == expected)
    }

    @Test(arguments: [
        "bus.music.volume=-1", "bus.music.volume=nan", "bus.music.loudness=3", "bus..volume=1",
        "parameter.speed=fast", "snapshot.pause=maybe", "voice.x.stop=on", "voice.3.stop=off", "volume=1", "nothing",
    ])
    func refusesBadAssignments(_ text: String) {
        #expect(throws: TelemetryCommandError.self) { try TelemetrySetting(assignment: text) }
    }

    @Test func commandLinesRoundTrip() throws {
        let commands = [
            TelemetryCommand(id: 1, action: .rate(30)),
            TelemetryCommand(id: 2, action: .set(.busVolume(bus: "music", volume: 0.25))),
            TelemetryCommand(id: nil, action: .set(.snapshot(name: "pause", active: false))),
            TelemetryCommand(id: 3, action: .reload),
        ]
        for command in commands {
            #expect(try TelemetryCommand(line: Array(command.line.utf8)) == command)
        }
    }

    @Test func readsNumbersAndBooleansAsValues() throws {
        let line = #"{"op":"set","key":"bus.music.mute","value":true,"id":7}"#
        #expect(
            try TelemetryCommand(line: Array(line.utf8))
                == TelemetryCommand(id: 7, action: .set(.busMute(bus: "music", muted: true))))
        let volume = #"{"op":"set","key":"bus.music.volume","value":0}"#
        #expect(try TelemetryCommand(line: Array(volume.utf8)).action == .set(.busVolume(bus: "music", volume: 0)))
    }

    @Test(arguments: [
        "", "garbage", "{}", #"{"op":"launch"}"#, #"{"op":"rate","value":0}"#, #"{"op":"rate","value":61}"#,
        #"{"op":"set","key":"bus.music.volume"}"#, #"[1,2,3]"#,
    ])
    func refusesBadLines(_ line: String) {
        #expect(throws: TelemetryCommandError.self) { try TelemetryCommand(line: Array(line.utf8)) }
    }
}
