/// Writes the server's snapshot lines, one after another, copying each
/// voice that reads the same as in the line before from that line's bytes
/// instead of writing it again.
///
/// Most of a snapshot's line is its voices, and most voices of a scene
/// (looping ambiences, music stems, anything that does not move) read the
/// same from one snapshot to the next, ten times a second: writing their
/// numbers out again was most of what the server's thread did for a client.
/// The line is the one ``TelemetrySnapshot/jsonLine`` writes, byte for byte.
///
/// Two lines' storage take turns: the next line is written into the one
/// before the previous, which the clients have let go of by then (a slow
/// client still holding it costs a new array, not a wrong line), while the
/// previous one is read for its voices.
struct TelemetrySnapshotEncoder {
    /// The last line written, and the voices it holds with where each one's object lies in it.
    private var previousLine: [UInt8] = []
    private var previousVoices: [TelemetrySnapshot.Voice] = []
    private var previousRanges: [Range<Int>] = []
    /// The line before the last: the next is written into its storage.
    private var spareLine: [UInt8] = []
    private var ranges: [Range<Int>] = []
    /// The last line's voices by id, made only when a voice is not where it was.
    private var previousIndex: [UInt64: Int] = [:]
    private var previousIndexValid = false

    /// How many voice objects the last ``line(for:)`` copied rather than wrote (tests).
    private(set) var copiedVoices = 0

    /// The snapshot's line, ending in `\n`.
    ///
    /// - Parameter snapshot: the snapshot.
    /// - Returns: the line; the caller may keep it (the encoder writes the
    ///   line after next into its storage only once nothing else holds it).
    mutating func line(for snapshot: TelemetrySnapshot) -> [UInt8] {
        var line: [UInt8] = []
        swap(&line, &spareLine)
        ranges.removeAll(keepingCapacity: true)
        previousIndexValid = false
        var copied = 0
        snapshot.writeJSONLine(into: &line) { json in
            for (position, voice) in snapshot.voices.enumerated() {
                let start = json.bytes.count
                if let earlier = previousPosition(of: voice, near: position) {
                    json.encodedValue(previousLine[previousRanges[earlier]])
                    copied += 1
                } else {
                    TelemetrySnapshot.write(voice, to: &json)
                }
                ranges.append(json.valueRange(since: start))
            }
        }
        copiedVoices = copied
        // The previous line becomes the spare; this one is read next time.
        spareLine = previousLine
        previousLine = line
        swap(&previousRanges, &ranges)
        previousVoices = snapshot.voices
        return line
    }

    /// Where `voice`, written alike, was in the last line: at the same
    /// place, or else anywhere (by id); nil when it is new or changed.
    private mutating func previousPosition(of voice: TelemetrySnapshot.Voice, near position: Int) -> Int? {
        if position < previousVoices.count, previousVoices[position].id == voice.id {
            return Self.readsTheSame(previousVoices[position], voice) ? position : nil
        }
        guard !previousVoices.isEmpty else { return nil }
        if !previousIndexValid {
            previousIndex.removeAll(keepingCapacity: true)
            for (index, earlier) in previousVoices.enumerated() { previousIndex[earlier.id] = index }
            previousIndexValid = true
        }
        guard let index = previousIndex[voice.id], Self.readsTheSame(previousVoices[index], voice) else {
            return nil
        }
        return index
    }

    /// Whether two voices are written as the same bytes: every field equal,
    /// the numbers bit for bit (−0 and 0 compare equal but are written apart).
    static func readsTheSame(_ a: TelemetrySnapshot.Voice, _ b: TelemetrySnapshot.Voice) -> Bool {
        guard a.id == b.id, a.state == b.state, a.gainDB.bitPattern == b.gainDB.bitPattern,
            a.name == b.name, a.bus == b.bus, a.reason == b.reason
        else { return false }
        switch (a.point, b.point) {
        case (nil, nil): return true
        case (let p?, let q?):
            return p.x.bitPattern == q.x.bitPattern && p.y.bitPattern == q.y.bitPattern
                && p.z.bitPattern == q.z.bitPattern
        default: return false
        }
    }
}
