import Foundation
import Testing

@testable import BackbeatTelemetry

/// The server's encoder copies the voices that read as in the line before:
/// every line must still be ``TelemetrySnapshot/jsonLine``, byte for byte,
/// whatever changed between them.
@Suite struct TelemetrySnapshotEncoderTests {
    /// A run of snapshots in which voices stay, move in the list, change one
    /// field at a time, come and go.
    @Test func everyLineIsTheSnapshotsOwnLine() throws {
        let encoder = TelemetrySnapshotEncoder()
        var snapshot = makeSnapshot(time: 0, voices: 40)
        var lines: [[UInt8]] = []
        var copied: [Int] = []
        func check(_ note: String) throws {
            snapshot.time += 0.1
            let line = encoder.line(for: snapshot)
            #expect(line == snapshot.jsonLine, "\(note)")
            // A NaN gain is written as 0 (JSON has no NaN), so that snapshot reads back otherwise.
            var readable = snapshot
            for index in readable.voices.indices where readable.voices[index].gainDB.isNaN {
                readable.voices[index].gainDB = 0
            }
            #expect(try JSONDecoder().decode(TelemetrySnapshot.self, from: Data(line)) == readable, "\(note)")
            // The caller keeps every line: none is written over later.
            lines.append(line)
            copied.append(encoder.copiedVoices)
        }
        try check("first")
        try check("unchanged")
        snapshot.voices.swapAt(0, 39)
        snapshot.voices.swapAt(3, 4)
        try check("reordered")
        snapshot.voices[5].gainDB -= 0.5
        snapshot.voices[6].state = .dormant
        snapshot.voices[7].reason = "outOfEarshot"
        snapshot.voices[8].point = .init(x: 1, y: 2, z: 3)
        snapshot.voices[9].point = .init(x: 0, y: 0, z: 0)
        snapshot.voices[10].name = "quote \" and é"
        snapshot.voices[11].bus = "ambience"
        try check("changed fields")
        snapshot.voices[12].gainDB = 0
        try check("zero")
        snapshot.voices[12].gainDB = -0.0
        try check("minus zero, equal to zero but written apart")
        snapshot.voices[13].gainDB = .nan
        try check("not a number")
        try check("not a number again")
        snapshot.voices.removeFirst(5)
        snapshot.voices.append(
            .init(id: 1_000, name: "new.ogg", bus: "effects", state: .playing, gainDB: -3, point: nil))
        try check("gone and new")
        snapshot.voices = []
        try check("none")
        snapshot = makeSnapshot(time: snapshot.time, voices: 3)
        try check("back")
        for (line, index) in zip(lines, lines.indices) {
            let text = String(decoding: line, as: UTF8.self)
            #expect(text.hasSuffix("\n") && !text.dropLast().contains("\n"), "line \(index)")
        }
        // The copies happened: every voice but the changed ones (a NaN gain
        // reads the same as itself), none on the first line or after none.
        #expect(copied[0] == 0)
        #expect(copied[1] == 40)
        #expect(copied[2] == 40)
        #expect(copied[3] == 33)
        #expect(copied[4] == 39)
        #expect(copied[5] == 39)
        #expect(copied[6] == 39)
        #expect(copied[7] == 40)
        #expect(copied[8] == 35)
        #expect(copied[10] == 0)
    }
}
