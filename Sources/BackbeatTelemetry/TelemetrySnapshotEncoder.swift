/// Writes the server's snapshot lines, one after another, copying each
/// voice that reads the same as in the line before from that line's bytes,
/// instead of writing its numbers again.
///
/// Most of a snapshot's line is its voices, and most voices of a scene
/// (looping ambiences, music stems, anything that does not move) read the
/// same from one snapshot to the next, ten times a second: writing their
/// numbers out again was most of what the server's thread did for a client.
/// The line is the one ``TelemetrySnapshot/jsonLine`` writes, byte for byte.
///
/// It keeps two lines: the last one, which it copies voices from (where
/// each voice's object lies in it is a range per voice), and the one
/// before, whose storage the next line is written into, with no allocation
/// once the clients have sent it and let go of it. A client that still
/// holds a line keeps its own copy: nothing is written over a line handed
/// out. Nothing here grows with the clients, their number or what they send.
final class TelemetrySnapshotEncoder {
    /// The line written last, which the next one copies voices from.
    private var line: [UInt8] = []
    /// The line before it: the next line is written into its storage.
    private var spare: [UInt8] = []
    /// Where each voice's object lies in `line`, one per voice of
    /// `previousVoices`; and in the line being written.
    private var ranges: [Range<Int>] = []
    private var nextRanges: [Range<Int>] = []
    /// The last line's voices, in its order.
    private var previousVoices: [TelemetrySnapshot.Voice] = []
    /// The last line's voices by id, made only when a voice is not where it was.
    private var previousIndex: [UInt64: Int] = [:]
    private var previousIndexValid = false

    /// How many voice objects the last ``line(for:)`` copied rather than wrote (tests).
    private(set) var copiedVoices = 0

    /// The snapshot's line, ending in `\n`.
    ///
    /// - Parameter snapshot: the snapshot.
    /// - Returns: the line; the caller may keep it (the encoder writes a
    ///   later line into its storage only once nothing else holds it).
    func line(for snapshot: TelemetrySnapshot) -> [UInt8] {
        previousIndexValid = false
        nextRanges.removeAll(keepingCapacity: true)
        var copied = 0
        // Voices are read in place through pointers, in this line and the
        // last one: an array's element is copied out (its strings retained,
        // then released) at every read, which was a fifth of a line.
        let lastVoices = previousVoices
        let last = line
        snapshot.voices.withUnsafeBufferPointer { voices in
            lastVoices.withUnsafeBufferPointer { previous in
                last.withUnsafeBytes { lastBytes in
                    snapshot.writeJSONLine(into: &spare) { json in
                        copied = writeVoices(voices, after: previous, copyingFrom: lastBytes, to: &json)
                    }
                }
            }
        }
        copiedVoices = copied
        swap(&line, &spare)
        swap(&ranges, &nextRanges)
        // The snapshot's own array, shared rather than copied voice by voice.
        previousVoices = snapshot.voices
        return line
    }

    /// Writes the objects of `voices` into `json`, each copied from the last
    /// line when it reads the same as there, and notes where each lies.
    ///
    /// - Parameters:
    ///   - voices: this line's voices.
    ///   - previous: the last line's voices.
    ///   - last: the last line's bytes.
    ///   - json: the line being written.
    /// - Returns: how many voice objects were copied rather than written.
    private func writeVoices(
        _ voices: UnsafeBufferPointer<TelemetrySnapshot.Voice>,
        after previous: UnsafeBufferPointer<TelemetrySnapshot.Voice>, copyingFrom last: UnsafeRawBufferPointer,
        to json: inout TelemetryJSONWriter
    ) -> Int {
        guard let base = voices.baseAddress else { return 0 }
        var copied = 0
        for position in 0..<voices.count {
            if let earlier = previousPosition(of: base + position, near: position, in: previous) {
                let range = ranges[earlier]
                json.encodedValue(UnsafeRawBufferPointer(rebasing: last[range]))
                nextRanges.append(json.bytes.count - range.count..<json.bytes.count)
                copied += 1
                continue
            }
            let start = json.bytes.count
            TelemetrySnapshot.write((base + position).pointee, to: &json)
            nextRanges.append(json.valueRange(since: start))
        }
        return copied
    }

    /// Where `voice`, written alike, was in the last line: at the same
    /// place, or else anywhere (by id); nil when it is new or changed.
    ///
    /// - Parameters:
    ///   - voice: the voice in this line.
    ///   - position: its place in this line.
    ///   - previous: the last line's voices.
    private func previousPosition(
        of voice: UnsafePointer<TelemetrySnapshot.Voice>, near position: Int,
        in previous: UnsafeBufferPointer<TelemetrySnapshot.Voice>
    ) -> Int? {
        guard let base = previous.baseAddress else { return nil }
        if position < previous.count, (base + position).pointee.id == voice.pointee.id {
            guard Self.readsTheSame(base + position, voice) else { return nil }
            return position
        }
        if !previousIndexValid {
            previousIndex.removeAll(keepingCapacity: true)
            for index in previous.indices { previousIndex[(base + index).pointee.id] = index }
            previousIndexValid = true
        }
        guard let index = previousIndex[voice.pointee.id], Self.readsTheSame(base + index, voice) else { return nil }
        return index
    }

    /// Whether two voices are written as the same bytes: every field equal,
    /// the numbers bit for bit (−0 and 0 compare equal but are written apart).
    /// Read through pointers, field by field, with no copy of either.
    static func readsTheSame(
        _ a: UnsafePointer<TelemetrySnapshot.Voice>, _ b: UnsafePointer<TelemetrySnapshot.Voice>
    ) -> Bool {
        guard a.pointee.id == b.pointee.id, a.pointee.state == b.pointee.state,
            a.pointee.gainDB.bitPattern == b.pointee.gainDB.bitPattern, a.pointee.name == b.pointee.name,
            a.pointee.bus == b.pointee.bus, a.pointee.reason == b.pointee.reason
        else { return false }
        switch (a.pointee.point, b.pointee.point) {
        case (nil, nil): return true
        case (let p?, let q?):
            return p.x.bitPattern == q.x.bitPattern && p.y.bitPattern == q.y.bitPattern
                && p.z.bitPattern == q.z.bitPattern
        default: return false
        }
    }
}
