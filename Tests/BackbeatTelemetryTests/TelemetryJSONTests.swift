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

    /// Numbers are written from the standard library's own digits (no
    /// `String` per number): the same text as `description`, and the same
    /// value read back.
    @Test func numbersAreWrittenAsTheirDescriptions() throws {
        let values: [Double] = [
            -23.456789012345678, 0.1, 1.0 / 3, -120, 0, -0.0, 3, 1e300, -1e-300, .leastNonzeroMagnitude, 12_345_678.9,
            Double(Float(0.3)), .greatestFiniteMagnitude, -Double.leastNormalMagnitude,
        ]
        for value in values {
            var snapshot = makeSnapshot(time: value, voices: 1)
            snapshot.voices[0].gainDB = value
            let line = String(decoding: snapshot.jsonLine, as: UTF8.self)
            #expect(line.contains(#""time":\#(value.description),"#), "\(value)")
            #expect(line.contains(#""gainDB":\#(value.description),"#), "\(value)")
            let decoded = try JSONDecoder().decode(TelemetrySnapshot.self, from: Data(line.utf8))
            #expect(decoded.time.bitPattern == value.bitPattern || (decoded.time == 0 && value == 0))
            #expect(decoded.voices[0].gainDB == value)
        }
    }

    /// The server writes each snapshot into the array of the one before:
    /// the same line as ``TelemetrySnapshot/jsonLine``, in the same storage
    /// once nothing else holds it, and in new storage while something does.
    @Test func aLineIsWrittenIntoThePreviousOnesStorage() {
        let first = makeSnapshot(time: 1, voices: 40)
        let second = makeSnapshot(time: 2, voices: 12)
        var line: [UInt8] = []
        first.writeJSONLine(into: &line)
        #expect(line == first.jsonLine)
        let storage = line.withUnsafeBufferPointer { $0.baseAddress }
        second.writeJSONLine(into: &line)
        #expect(line == second.jsonLine)
        #expect(line.withUnsafeBufferPointer { $0.baseAddress } == storage, "the storage was reused")
        // A client still sending the line keeps it as it was.
        let held = line
        first.writeJSONLine(into: &line)
        #expect(held == second.jsonLine && line == first.jsonLine)
    }

    /// A voice's position is kept as a point, and reads and writes as `[x, y, z]` or null.
    @Test func aPositionIsAPointAndAnArray() throws {
        var voice = TelemetrySnapshot.Voice(
            id: 1, name: "a.wav", bus: "effects", state: .playing, gainDB: -3, position: [1, -2.5, 3.25])
        #expect(voice.point == .init(x: 1, y: -2.5, z: 3.25))
        #expect(voice.position == [1, -2.5, 3.25])
        voice.position = [1, 2]
        #expect(voice.position == nil && voice.point == nil)
        voice.point = .init(x: 0.5, y: 0, z: -1)
        #expect(voice.position == [0.5, 0, -1])
        var snapshot = makeSnapshot(time: 0, voices: 2)
        snapshot.voices[0] = voice
        // Both ways of writing it (by hand and through Codable) read back the same.
        let byHand = try JSONDecoder().decode(TelemetrySnapshot.self, from: Data(snapshot.jsonLine))
        let coded = try JSONDecoder().decode(TelemetrySnapshot.self, from: JSONEncoder().encode(snapshot))
        #expect(byHand == snapshot && coded == snapshot)
        #expect(byHand.voices[0].position == [0.5, 0, -1] && byHand.voices[1].position == nil)
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
