import Foundation
import Testing

@testable import BackbeatTelemetry

/// The terminal screen of `backbeat monitor PID`, drawn from fixture snapshots.
@Suite struct MonitorScreenTests {
    typealias Snapshot = TelemetrySnapshot

    static func bus(_ name: String, peak: Double, rms: Double, volume: Double = 1, muted: Bool = false) -> Snapshot.Bus
    {
        Snapshot.Bus(
            name: name, parent: name == "master" ? nil : "master", volume: volume, effectiveGain: volume, peakDB: peak,
            rmsDB: rms, muted: muted, soloed: false, paused: false)
    }

    static func voice(_ id: UInt64, _ name: String, gain: Double, state: Snapshot.VoiceState = .playing)
        -> Snapshot.Voice
    {
        Snapshot.Voice(
            id: id, name: name, bus: "effects", state: state, gainDB: gain,
            position: id.isMultiple(of: 2) ? [1, 0, -2.5] : nil)
    }

    /// A drum pad's snapshot: three buses, a music player, voices in no order.
    static let fixture = Snapshot(
        time: 65.25,
        voices: [
            voice(1, "maraca.ogg", gain: -30), voice(2, "snare.ogg", gain: -3.5),
            voice(3, "bass.ogg", gain: -12, state: .virtual), voice(4, "tambourine.ogg", gain: -20),
        ],
        voiceCounts: Snapshot.VoiceCounts(playing: 3, virtual: 1, unlisted: 0),
        buses: [
            bus("master", peak: 0, rms: -6), bus("music", peak: -30, rms: -45, volume: 0.5, muted: true),
            bus("effects", peak: -200, rms: -200),
        ],
        music: [
            Snapshot.MusicPlayer(
                kind: "queue", state: "playing", item: "Backroad Anthem", time: 12.3, volume: 1, bus: "music")
        ],
        engine: Snapshot.Engine(
            sourcesInUse: 5, sourcesTotal: 255, underruns: 2, updateCPUPercent: 1.25, output: "device",
            sampleRate: 48_000))

    static func screen(selected: String? = nil) -> MonitorScreen {
        MonitorScreen(title: "drumpad (PID 42)", snapshot: fixture, selectedBus: selected)
    }

    @Test func metersFillToTheirLevels() {
        // −60…0 dB over 20 columns: 3 dB a column.
        #expect(MonitorScreen.meter(peakDB: 0, rmsDB: -6, width: 20) == "[" + String(repeating: "#", count: 18) + "==]")
        #expect(
            MonitorScreen.meter(peakDB: -30, rmsDB: -45, width: 20)
                == "[" + String(repeating: "#", count: 5) + String(repeating: "=", count: 5)
                + String(repeating: " ", count: 10) + "]")
        #expect(
            MonitorScreen.meter(peakDB: -120, rmsDB: -120, width: 20) == "[" + String(repeating: " ", count: 20) + "]")
        // Above 0 dBFS the bar is full, not longer.
        #expect(MonitorScreen.meter(peakDB: 6, rmsDB: 3, width: 10) == "[##########]")
    }

    @Test func busesShowLevelsVolumeAndMarks() {
        let lines = Self.screen().lines(width: 120, height: 40).map(\.text)
        let music = lines.first { $0.contains(" music ") }
        #expect(music?.contains("-30.0") == true, "\(lines)")
        #expect(music?.contains("-45.0") == true)
        #expect(music?.contains("0.50 (-6.0 dB)") == true)
        #expect(music?.contains("MUTE") == true)
        let effects = lines.first { $0.contains(" effects ") && $0.contains("[") }
        #expect(effects?.contains("-inf") == true, "silence reads -inf: \(String(describing: effects))")
        #expect(lines.contains { $0.contains("sources 5/255") && $0.contains("underruns 2") && $0.contains("1.2 %") })
        #expect(lines.contains { $0.contains("queue") && $0.contains("\"Backroad Anthem\"") && $0.contains("0:12.3") })
    }

    @Test func theSelectedBusIsMarkedAndHighlighted() {
        var screen = Self.screen()
        // With no selection, the first bus is selected.
        #expect(
            screen.lines(width: 100, height: 40).filter(\.highlighted).map(\.text).first?.hasPrefix("> master") == true)
        screen.moveSelection(by: 1)
        let highlighted = screen.lines(width: 100, height: 40).filter(\.highlighted)
        #expect(highlighted.count == 1)
        #expect(highlighted.first?.text.hasPrefix("> music") == true)
        // The frame draws it in reverse video, and nothing else.
        let frame = screen.frame(width: 100, height: 40)
        #expect(frame.components(separatedBy: "\u{1B}[7m").count == 2)
        #expect(frame.contains("\u{1B}[7m> music"))
        // The selection stops at the ends.
        screen.moveSelection(by: 5)
        #expect(screen.currentBus?.name == "effects")
        screen.moveSelection(by: -9)
        #expect(screen.currentBus?.name == "master")
    }

    @Test func voicesAreSortedByGain() {
        let lines = Self.screen().lines(width: 120, height: 40).map(\.text)
        let order = ["snare.ogg", "bass.ogg", "tambourine.ogg", "maraca.ogg"].map { name in
            lines.firstIndex { $0.contains(name) } ?? -1
        }
        #expect(order.allSatisfy { $0 >= 0 } && order == order.sorted(), "\(lines)")
        let bass = lines.first { $0.contains("bass.ogg") }
        #expect(bass?.hasPrefix("  virtual") == true)
        #expect(bass?.contains("-12.0") == true)
        #expect(lines.contains { $0.contains("snare.ogg") && $0.contains("(1.0, 0.0, -2.5)") })
        #expect(lines.contains { $0.contains("maraca.ogg") && $0.hasSuffix("2D") })
        #expect(lines.contains { $0.contains("3 playing, 1 virtual, 0 dormant, 0 stopping") })
    }

    @Test func voicesThatDoNotFitAreCounted() {
        var snapshot = Self.fixture
        snapshot.voices = (0..<50).map { Self.voice(UInt64($0), "v\($0).ogg", gain: -Double($0)) }
        snapshot.voiceCounts = Snapshot.VoiceCounts(playing: 3_000, unlisted: 2_950)
        let screen = MonitorScreen(title: "game", snapshot: snapshot)
        let lines = screen.lines(width: 100, height: 30)
        #expect(lines.count == 30)
        let listed = lines.filter { $0.text.hasPrefix("  playing") }.count
        #expect(listed > 0 && listed < 50)
        // The loudest are the ones listed, and the count covers the rest.
        #expect(lines.contains { $0.text.contains("v0.ogg") })
        #expect(lines.contains { $0.text.contains("and \(2_950 + 50 - listed) more") }, "\(lines.map(\.text))")
        #expect(lines.last?.text.hasPrefix("keys:") == true)
    }

    @Test(arguments: [20, 40, 80])
    func linesAreCutToTheWidth(_ width: Int) {
        var snapshot = Self.fixture
        snapshot.voices.append(Self.voice(9, String(repeating: "long", count: 40) + ".ogg", gain: 0))
        let screen = MonitorScreen(
            title: "drumpad (PID 42)", snapshot: snapshot, status: String(repeating: "x", count: 300))
        let lines = screen.lines(width: width, height: 12)
        #expect(lines.count == 12)
        #expect(lines.allSatisfy { $0.text.count <= width }, "\(lines.map(\.text))")
        // The keys and the status stay on a short screen.
        #expect(lines[10].text.hasPrefix("keys:".prefix(width)))
        #expect(lines[11].text.hasPrefix("x"))
    }

    @Test func controlCharactersFromTheGameNeverReachTheTerminal() {
        var snapshot = Self.fixture
        snapshot.voices = [Self.voice(1, "evil\u{1B}[2J\u{07}.ogg", gain: 0)]
        let frame = MonitorScreen(title: "game", snapshot: snapshot).frame(width: 100, height: 40)
        #expect(!frame.contains("\u{1B}[2J"))
        #expect(!frame.contains("\u{07}"))
        #expect(frame.contains("evil?[2J?.ogg"))
    }

    @Test func beforeTheFirstSnapshotItSaysSo() {
        let lines = MonitorScreen(title: "game (PID 1)").lines(width: 80, height: 24).map(\.text)
        #expect(lines.contains { $0.contains("waiting for the first snapshot") })
    }

    @Test func keysReadFromRawBytes() {
        let bytes = Array("\u{1B}[A\u{1B}[Bkjms+-=_q".utf8) + [0x03, 0x1B, 0x1B] + Array("x\u{1B}OA".utf8)
        #expect(
            MonitorScreen.keys(in: bytes) == [
                .up, .down, .up, .down, .mute, .solo, .louder, .quieter, .louder, .quieter, .quit, .quit, .up,
            ])
    }

    @Test func keysActOnTheSelectedBus() {
        var screen = Self.screen(selected: "music")
        #expect(screen.setting(for: .mute) == .busMute(bus: "music", muted: false))
        #expect(screen.setting(for: .solo) == .busSolo(bus: "music", soloed: true))
        guard case .busVolume(let bus, let louder) = screen.setting(for: .louder) else {
            Issue.record("+ is not a volume change")
            return
        }
        #expect(bus == "music")
        #expect(abs(20 * log10(Double(louder) / 0.5) - 1) < 0.001)
        #expect(screen.setting(for: .quit) == nil)
        screen.moveSelection(by: -1)
        #expect(screen.setting(for: .mute) == .busMute(bus: "master", muted: true))
    }

    @Test func volumeStepsByOneDecibel() {
        #expect(abs(MonitorScreen.steppedVolume(1, up: false) - 0.891_25) < 1e-4)
        #expect(abs(MonitorScreen.steppedVolume(0.5, up: true) - 0.561_01) < 1e-4)
        #expect(MonitorScreen.steppedVolume(0.95, up: true) == 1)
        #expect(MonitorScreen.steppedVolume(0, up: true) == 0.05)
        #expect(MonitorScreen.steppedVolume(0.051, up: false) == 0)
        #expect(MonitorScreen.steppedVolume(0, up: false) == 0)
        #expect(MonitorScreen.steppedVolume(1, up: true) == 1)
    }
}
