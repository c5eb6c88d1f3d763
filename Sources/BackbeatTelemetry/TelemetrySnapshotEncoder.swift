/// Writes the server's snapshot lines, one after another, copying each
/// voice that reads the same as in the line before from a cache of the
/// bytes written for it then, instead of writing its numbers again.
///
/// Most of a snapshot's line is its voices, and most voices of a scene
/// (looping ambiences, music stems, anything that does not move) read the
/// same from one snapshot to the next, ten times a second: writing their
/// numbers out again was most of what the server's thread did for a client.
/// The line is the one ``TelemetrySnapshot/jsonLine`` writes, byte for byte.
///
/// Its memory is fixed when the server starts, whatever clients do: two
/// tables of ``TelemetryProtocol/maximumListedVoices`` slots of
/// ``slotBytes`` each (the last line's voices, read; this line's, written;
/// they take turns), 128 KiB of address space that pages in only as far as
/// snapshots list voices. A voice whose object is longer than a slot is
/// written every time. Nothing here grows with the clients, their number or
/// what they send: the line is written into the last one's storage, as
/// before, and no line is kept beyond it.
final class TelemetrySnapshotEncoder {
    /// Voices cached at most: the most a snapshot lists.
    static let slots = TelemetryProtocol.maximumListedVoices
    /// The longest voice object cached, in bytes (a typical one is about 150).
    static let slotBytes = 256

    /// The line written last: the next is written into its storage, with
    /// no allocation once the clients have sent it (they let go of it then).
    private var line: [UInt8] = []
    /// The slot tables: `tables[current]` holds the last line's voices.
    private let tables: UnsafeMutableRawBufferPointer
    private var current = 0
    /// Each slot's length in the last line's table (-1: not cached), and in the one being written.
    private var lengths: [Int]
    private var nextLengths: [Int]
    /// The last line's voices, in its order (at most ``slots``).
    private var previousVoices: [TelemetrySnapshot.Voice] = []
    /// The last line's voices by id, made only when a voice is not where it was.
    private var previousIndex: [UInt64: Int]
    private var previousIndexValid = false

    /// How many voice objects the last ``line(for:)`` copied rather than wrote (tests).
    private(set) var copiedVoices = 0

    init() {
        tables = .allocate(byteCount: 2 * Self.slots * Self.slotBytes, alignment: 16)
        lengths = [Int](repeating: -1, count: Self.slots)
        nextLengths = lengths
        previousIndex = Dictionary(minimumCapacity: Self.slots)
    }

    deinit { tables.deallocate() }

    /// The snapshot's line, ending in `\n`.
    ///
    /// - Parameter snapshot: the snapshot.
    /// - Returns: the line; the caller may keep it (the encoder writes the
    ///   next line into its storage only once nothing else holds it).
    func line(for snapshot: TelemetrySnapshot) -> [UInt8] {
        previousIndexValid = false
        let readBase = current * Self.slots * Self.slotBytes
        let writeBase = (1 - current) * Self.slots * Self.slotBytes
        var copied = 0
        snapshot.writeJSONLine(into: &line) { json in
            for (position, voice) in snapshot.voices.enumerated() {
                guard position < Self.slots else {
                    TelemetrySnapshot.write(voice, to: &json)
                    continue
                }
                let target = writeBase + position * Self.slotBytes
                if let earlier = previousPosition(of: voice, near: position) {
                    let length = lengths[earlier]
                    let from = readBase + earlier * Self.slotBytes
                    let source = UnsafeRawBufferPointer(rebasing: tables[from..<from + length])
                    json.encodedValue(source)
                    UnsafeMutableRawBufferPointer(rebasing: tables[target..<target + length]).copyMemory(from: source)
                    nextLengths[position] = length
                    copied += 1
                    continue
                }
                let start = json.bytes.count
                TelemetrySnapshot.write(voice, to: &json)
                let range = json.valueRange(since: start)
                guard range.count <= Self.slotBytes else {
                    nextLengths[position] = -1
                    continue
                }
                json.bytes.withUnsafeBytes { written in
                    UnsafeMutableRawBufferPointer(rebasing: tables[target..<target + range.count])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: written[range]))
                }
                nextLengths[position] = range.count
            }
        }
        copiedVoices = copied
        swap(&lengths, &nextLengths)
        current = 1 - current
        // The snapshot's own array, shared rather than copied voice by voice
        // (a snapshot lists at most `slots`): it is let go of at the next line.
        previousVoices =
            snapshot.voices.count <= Self.slots ? snapshot.voices : Array(snapshot.voices.prefix(Self.slots))
        return line
    }

    /// Where `voice`, written alike and cached, was in the last line: at
    /// the same place, or else anywhere (by id); nil when it is new, changed
    /// or too long to cache.
    private func previousPosition(of voice: TelemetrySnapshot.Voice, near position: Int) -> Int? {
        if position < previousVoices.count, previousVoices[position].id == voice.id {
            guard lengths[position] >= 0, Self.readsTheSame(previousVoices[position], voice) else { return nil }
            return position
        }
        guard !previousVoices.isEmpty else { return nil }
        if !previousIndexValid {
            previousIndex.removeAll(keepingCapacity: true)
            for (index, earlier) in previousVoices.enumerated() { previousIndex[earlier.id] = index }
            previousIndexValid = true
        }
        guard let index = previousIndex[voice.id], lengths[index] >= 0,
            Self.readsTheSame(previousVoices[index], voice)
        else { return nil }
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
