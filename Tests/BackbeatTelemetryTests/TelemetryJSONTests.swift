import Foundation
import Testing

@testable import BackbeatTelemetry

/// The hand-written lines must read back, through the Codable types, to
/// what was written.
@Suite struct TelemetryJSONTests {
    @Test func snapshotLineDecodesToTheSameSnapshot() throws {
        var snapshot = makeSnapshot(time: 12.345, voices: 40)
        snapshot.voices[1].name = "quote \" backslash \\ newline \n tab \t bell \u{7} é 🥁"
        snapshot.listener = nil
        snapshot.music[0].item = nil
        let line = snapshot.jsonLine
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(!line.dropLast().contains(UInt8(ascii: "\n")))
        #expect(try JSONDecoder().decode(TelemetrySnapshot.self, from: Data(line)) == snapshot)
        // The protocol spells an unpositioned voice's position as null.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        let voices = try #require(object["voices"] as? [[String: Any]])
        #expect(voices[1]["position"] is NSNull)
        #expect(voices[0]["position"] as? [Double] == [0, 0.5, -2.25])
    }

    @Test func numbersJSONCannotHoldStayValid() throws {
        var snapshot = makeSnapshot(time: 0)
        snapshot.voices[0].gainDB = -.infinity
        snapshot.voices[1].gainDB = .nan
        let decoded = try JSONDecoder().decode(TelemetrySnapshot.self, from: Data(snapshot.jsonLine))
        #expect(decoded.voices[0].gainDB == -.greatestFiniteMagnitude)
        #expect(decoded.voices[1].gainDB == 0)
    }

    @Test func otherLinesDecodeByType() throws {
        let hello = TelemetryHello(pid: 9, process: "game \"one\"", output: "device", sampleRate: 44_100)
        let event = TelemetryEvent(time: 1.5, event: .voiceStolen, voice: 3, name: "boom.wav", message: nil)
        let text = { (bytes: [UInt8]) in String(decoding: bytes.dropLast(), as: UTF8.self) }
        guard case .hello(let readHello) = TelemetryLine.decode(text(hello.jsonLine)) else {
            Issue.record("not a hello")
            return
        }
        #expect(readHello == hello)
        #expect(TelemetryLine.decode(text(event.jsonLine)).event == event)
        #expect(TelemetryLine.decode(text(TelemetryReply.ok(id: 4).jsonLine)).reply == .ok(id: 4))
        #expect(TelemetryLine.decode(text(TelemetryReply.error("no", id: nil).jsonLine)).reply == .error("no", id: nil))
    }

    @Test(arguments: [
        #"{"type":"heartbeat","time":1}"#, #"{"type":"event","time":1,"event":"voiceTeleported"}"#, "not json", "",
    ])
    func unknownLinesAreKeptAsTheyCame(_ line: String) {
        guard case .other(let kept) = TelemetryLine.decode(line) else {
            Issue.record("decoded \(line)")
            return
        }
        #expect(kept == line)
    }
}
