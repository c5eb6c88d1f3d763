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

    /// Whole numbers are written digit by digit into the line: the same
    /// text as `description`, at every length and at both ends of the range.
    @Test func integersAreWrittenAsTheirDescriptions() {
        let unsigned: [UInt64] = [0, 1, 9, 10, 99, 100, 12_345, 1 << 32, UInt64(Int64.max), .max]
        let signed: [Int64] = [-1, -9, -10, -12_345, .min, .max]
        for value in unsigned {
            var json = TelemetryJSONWriter(capacity: 32)
            json.integer(value)
            #expect(String(decoding: json.bytes, as: UTF8.self) == value.description)
        }
        for value in signed {
            var json = TelemetryJSONWriter(capacity: 32)
            json.beginArray()
            json.integer(value)
            json.integer(Int32(truncatingIfNeeded: value))
            json.endArray()
            let expected = "[\(value),\(Int32(truncatingIfNeeded: value))]"
            #expect(String(decoding: json.bytes, as: UTF8.self) == expected)
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

    /// The writer's bytes for a snapshot with something in every field
    /// (escapes, non-finite numbers, nil and non-nil optionals, two of each
    /// list), and for an empty one, as they were when the writer was folded
    /// into its field helpers: a rewrite must not change one byte, since
    /// monitors may compare lines as text.
    @Test func aSnapshotIsWrittenByteForByteAsBefore() {
        var snapshot = makeSnapshot(time: 12.345, voices: 4)
        snapshot.voices[1].name = "quote \" backslash \\ newline \n tab \t bell \u{7} é 🥁"
        snapshot.voices[2].gainDB = -.infinity
        snapshot.voices[3].gainDB = .nan
        snapshot.voiceCounts = .init(playing: 1, virtual: 2, dormant: 3, stopping: 4, unlisted: 5)
        snapshot.parameters.append(.init(name: "wind", value: -1e-300, current: 1e300, minimum: -2, maximum: 2))
        snapshot.snapshots.append(.init(name: "underwater", active: false))
        snapshot.music.append(.init(kind: "adaptive", state: "stopped", item: nil, time: 0, volume: 0.5, bus: "music"))
        let rich = [
            #"{"type":"snapshot","version":1,"time":12.345,"voices":[{"id":0,"name":"footstep_0.ogg","#,
            #""bus":"effects","state":"virtual","reason":"voiceLimit","gainDB":-0.0,"position":[0.0,0.5,-2.25]},"#,
            #"{"id":1,"name":"quote \" backslash \\ newline \n tab \t bell \u0007 é 🥁","bus":"music","#,
            #""state":"playing","reason":null,"gainDB":-0.37,"position":null},{"id":2,"name":"footstep_2.ogg","#,
            #""bus":"effects","state":"playing","reason":null,"gainDB":-1.7976931348623157e+308,"position":[2.0,"#,
            #"0.5,-2.25]},{"id":3,"name":"footstep_3.ogg","bus":"music","state":"virtual","reason":"voiceLimit","#,
            #""gainDB":0.0,"position":null}],"voiceCounts":{"playing":1,"virtual":2,"dormant":3,"stopping":4,"#,
            #""unlisted":5},"buses":[{"name":"master","parent":null,"volume":1.0,"effectiveGain":1.0,"#,
            #""peakDB":-6.5,"rmsDB":-12.25,"muted":false,"soloed":false,"paused":false},{"name":"music","#,
            #""parent":"master","volume":0.5,"effectiveGain":0.25,"peakDB":-120.0,"rmsDB":-120.0,"muted":true,"#,
            #""soloed":false,"paused":false}],"parameters":[{"name":"speed","value":0.8,"current":0.75,"#,
            #""minimum":0.0,"maximum":1.0},{"name":"wind","value":-1e-300,"current":1e+300,"minimum":-2.0,"#,
            #""maximum":2.0}],"snapshots":[{"name":"pause","active":true},{"name":"underwater","active":false}],"#,
            #""music":[{"kind":"queue","state":"playing","item":"Song \"One\"","time":12.5,"volume":1.0,"#,
            #""bus":"music"},{"kind":"adaptive","state":"stopped","item":null,"time":0.0,"volume":0.5,"#,
            #""bus":"music"}],"listener":{"position":[0.0,0.0,0.0],"forward":[0.0,0.0,-1.0]},"#,
            #""engine":{"sourcesInUse":3,"sourcesTotal":255,"underruns":0,"updateCPUPercent":1.5,"#,
            #""output":"offline","sampleRate":48000}}"#,
        ].joined()
        #expect(snapshot.jsonLine == Array((rich + "\n").utf8))
        let empty = TelemetrySnapshot(
            time: 0,
            engine: .init(
                sourcesInUse: 0, sourcesTotal: 0, underruns: 7, updateCPUPercent: 0, output: "", sampleRate: 44_100))
        let bare = [
            #"{"type":"snapshot","version":1,"time":0.0,"voices":[],"voiceCounts":{"playing":0,"virtual":0,"#,
            #""dormant":0,"stopping":0,"unlisted":0},"buses":[],"parameters":[],"snapshots":[],"music":[],"#,
            #""listener":null,"engine":{"sourcesInUse":0,"sourcesTotal":0,"underruns":7,"updateCPUPercent":0.0,"#,
            #""output":"","sampleRate":44100}}"#,
        ].joined()
        #expect(empty.jsonLine == Array((bare + "\n").utf8))
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
