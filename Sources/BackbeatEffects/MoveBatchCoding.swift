import BackbeatCapture

/// Packs ``AudioEngine/moveVoices(_:to:)`` batches for a capture, and reads
/// them back: a game that moves a thousand emitters fifty times a second
/// writes the same voices over and over, each a little farther along.
///
/// A batch of the same voices in the same order as the one before leaves
/// their ids out. Each coordinate is written as the difference between its
/// bit pattern and the one predicted from the voice's last three (the last,
/// plus the last step, plus the step's last change), in wrapping 32-bit
/// arithmetic, zigzag-coded as a varint: smooth motion (a line, a circle)
/// costs a byte or two an axis, and the reader gets back exactly the bits
/// the game passed (NaN payloads included). Writer and reader keep the same
/// state, so both must see every batch, in order.
package struct MoveBatchCoding: Sendable {
    /// One coordinate's history: its last bit pattern, the last step and the step's last change.
    private struct Axis: Sendable {
        var last: UInt32 = 0
        var step: UInt32 = 0
        var turn: UInt32 = 0

        /// The bit pattern expected next: the last, plus its step, plus the step's change.
        var predicted: UInt32 { last &+ step &+ turn }

        /// Takes `value` as the newest; `age` is how many positions the voice had before it.
        mutating func advance(to value: UInt32, age: UInt8) {
            let newStep = age >= 1 ? value &- last : 0
            turn = age >= 2 ? newStep &- step : 0
            step = newStep
            last = value
        }
    }

    private var ids: [UInt64] = []
    /// Per voice, three axes (x, y, z) in a row.
    private var axes: [Axis] = []
    /// Per voice: how many positions it has had, up to 2 (a step, and a
    /// change of step, count from the second and third).
    private var age: [UInt8] = []

    /// A coder that has seen no batch.
    package init() {}

    /// Whether `voices` are the voices of the previous batch, in its order.
    private func isSameSet(count: Int, id: (Int) -> UInt64) -> Bool {
        guard count == ids.count else { return false }
        for index in 0..<count where ids[index] != id(index) { return false }
        return true
    }

    /// Takes up a new list of voices, keeping the state of those already known.
    private mutating func remap(count: Int, id: (Int) -> UInt64) {
        var known: [UInt64: Int] = [:]
        known.reserveCapacity(ids.count)
        for (index, old) in ids.enumerated() { known[old] = index }
        var newIDs = [UInt64](repeating: 0, count: count)
        var newAxes = [Axis](repeating: Axis(), count: count * 3)
        var newAge = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            let voice = id(index)
            newIDs[index] = voice
            guard let old = known[voice] else { continue }
            for axis in 0..<3 { newAxes[index * 3 + axis] = axes[old * 3 + axis] }
            newAge[index] = age[old]
        }
        (ids, axes, age) = (newIDs, newAxes, newAge)
    }

    /// Writes one batch.
    ///
    /// - Parameters:
    ///   - count: How many voices the batch moves.
    ///   - id: The raw ``VoiceID`` of the voice at an index.
    ///   - position: Its new position, as the game gave it.
    ///   - encoder: Where to write the batch.
    package mutating func encode(
        count: Int, id: (Int) -> UInt64, position: (Int) -> Audio3DPoint, into encoder: inout CaptureEncoder
    ) {
        let same = isSameSet(count: count, id: id)
        encoder.appendFixed(UInt8(same ? 1 : 0))
        if !same {
            remap(count: count, id: id)
            encoder.append(UInt64(count))
            var previous: UInt64 = 0
            for voice in ids {
                encoder.append(Int64(bitPattern: voice &- previous))
                previous = voice
            }
        }
        // A game moves thousands of voices a frame, so this loop is the
        // capture's hottest: it works on raw buffers (no bounds, uniqueness
        // or growth checks per coordinate) and writes its varints straight
        // into room reserved for the longest they can be.
        encoder.appendUnsafe(maximumBytes: count * 3 * Self.maximumResidualBytes) { out in
            var written = 0
            axes.withUnsafeMutableBufferPointer { axes in
                age.withUnsafeMutableBufferPointer { age in
                    guard let axes = axes.baseAddress, let age = age.baseAddress else { return }
                    for index in 0..<count {
                        let p = position(index)
                        let voiceAge = age[index]
                        let slot = axes + index * 3
                        written += Self.put(p.x.bitPattern, slot, age: voiceAge, at: out + written)
                        written += Self.put(p.y.bitPattern, slot + 1, age: voiceAge, at: out + written)
                        written += Self.put(p.z.bitPattern, slot + 2, age: voiceAge, at: out + written)
                        age[index] = min(voiceAge + 1, 2)
                    }
                }
            }
            return written
        }
    }

    /// The most bytes a 32-bit residual takes as a varint.
    private static let maximumResidualBytes = 5

    /// Writes one coordinate's residual against its axis's prediction at
    /// `out` and takes `value` as the axis's newest; returns the bytes written.
    ///
    /// - Parameters:
    ///   - value: The coordinate's bit pattern.
    ///   - axis: Its axis's history.
    ///   - age: How many positions the voice had before this one.
    ///   - out: Where the varint goes (room for ``maximumResidualBytes``).
    @inline(__always)
    private static func put(
        _ value: UInt32, _ axis: UnsafeMutablePointer<Axis>, age: UInt8, at out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let written = putResidual(zigzag(value &- axis.pointee.predicted), at: out)
        axis.pointee.advance(to: value, age: age)
        return written
    }

    /// Writes `value` as a varint at `out`; returns how many bytes it took.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - out: Where it goes (room for ``maximumResidualBytes``).
    @inline(__always)
    private static func putResidual(_ value: UInt32, at out: UnsafeMutablePointer<UInt8>) -> Int {
        var value = value
        var count = 0
        while value >= 0x80 {
            out[count] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            count += 1
        }
        out[count] = UInt8(value)
        return count + 1
    }

    /// Reads one batch: the raw ids of its voices (nil when they are the
    /// previous batch's) and their positions.
    ///
    /// - Parameter decoder: The record's decoder.
    /// - Returns: The batch's voice ids, nil for the same as before, and the positions.
    /// - Throws: When the batch is cut short, or says "same voices" first.
    package mutating func decode(
        _ decoder: inout CaptureDecoder
    ) throws(CaptureFormatError) -> (ids: [UInt64]?, positions: [Audio3DPoint]) {
        let flag = try decoder.fixed(UInt8.self)
        guard flag <= 1 else { throw .malformed("a move batch's flag is \(flag)") }
        var changed: [UInt64]?
        if flag == 0 {
            let count = try decoder.count(maximum: 10_000_000, minimumBytesEach: 4)
            var list: [UInt64] = []
            list.reserveCapacity(count)
            var previous: UInt64 = 0
            for _ in 0..<count {
                previous = previous &+ UInt64(bitPattern: try decoder.int64())
                list.append(previous)
            }
            remap(count: count) { list[$0] }
            changed = list
        }
        guard decoder.remaining >= ids.count * 3 else { throw .truncated("a move batch's positions are cut short") }
        var positions: [Audio3DPoint] = []
        positions.reserveCapacity(ids.count)
        for index in 0..<ids.count {
            var bits: (UInt32, UInt32, UInt32) = (0, 0, 0)
            for axis in 0..<3 {
                let slot = index * 3 + axis
                let raw = try decoder.uint64()
                guard let residual = UInt32(exactly: raw) else { throw .malformed("a coordinate of \(raw)") }
                let value = axes[slot].predicted &+ Self.unzigzag(residual)
                axes[slot].advance(to: value, age: age[index])
                switch axis {
                case 0: bits.0 = value
                case 1: bits.1 = value
                default: bits.2 = value
                }
            }
            age[index] = min(age[index] + 1, 2)
            positions.append(
                Audio3DPoint(x: Float(bitPattern: bits.0), y: Float(bitPattern: bits.1), z: Float(bitPattern: bits.2)))
        }
        return (changed, positions)
    }

    private static func zigzag(_ value: UInt32) -> UInt32 {
        let signed = Int32(bitPattern: value)
        return UInt32(bitPattern: (signed << 1) ^ (signed >> 31))
    }

    private static func unzigzag(_ value: UInt32) -> UInt32 { (value >> 1) ^ (0 &- (value & 1)) }
}
