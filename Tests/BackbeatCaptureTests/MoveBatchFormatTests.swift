import BackbeatCapture
import BackbeatEffects
import BackbeatSupport
import Foundation
import Testing

/// The packed move batch's bytes, checked against the format as
/// ``CaptureKind/effectsVoiceMoveBatch`` describes it, written here the
/// plain way (a byte at a time, through ``CaptureEncoder``): the fast
/// writer must not change a byte, or captures already written would no
/// longer replay.
@Suite("Move batches: the bytes the format describes")
struct MoveBatchFormatTests {
    /// The format, written the slow, obvious way.
    private struct Reference {
        var ids: [UInt64] = []
        /// Per raw voice id, per axis: last bit pattern, last step, the step's last change; and the voice's age.
        var history: [UInt64: [(last: UInt32, step: UInt32, turn: UInt32)]] = [:]
        var ages: [UInt64: UInt8] = [:]

        mutating func encode(ids newIDs: [UInt64], points: [Audio3DPoint], into encoder: inout CaptureEncoder) {
            let same = newIDs == ids
            encoder.appendFixed(UInt8(same ? 1 : 0))
            if !same {
                encoder.append(UInt64(newIDs.count))
                var previous: UInt64 = 0
                for id in newIDs {
                    encoder.append(Int64(bitPattern: id &- previous))
                    previous = id
                }
                // A voice that left the batch forgets its history.
                history = history.filter { newIDs.contains($0.key) }
                ages = ages.filter { newIDs.contains($0.key) }
                ids = newIDs
            }
            for (id, point) in zip(newIDs, points) {
                var axes = history[id] ?? Array(repeating: (0, 0, 0), count: 3)
                let age = ages[id] ?? 0
                for (axis, value) in [point.x.bitPattern, point.y.bitPattern, point.z.bitPattern].enumerated() {
                    let (last, step, turn) = axes[axis]
                    let residual = Int32(bitPattern: value &- (last &+ step &+ turn))
                    encoder.append(UInt64(UInt32(bitPattern: (residual << 1) ^ (residual >> 31))))
                    let newStep = age >= 1 ? value &- last : 0
                    axes[axis] = (value, newStep, age >= 2 ? newStep &- step : 0)
                }
                history[id] = axes
                ages[id] = min(age + 1, 2)
            }
        }
    }

    @Test func packedBatchesAreTheBytesTheFormatDescribes() {
        var fast = MoveBatchCoding()
        var plain = Reference()
        var random = SplitMix64(seed: 0x5EED)
        var ids: [UInt64] = (0..<300).map { UInt64($0 * 7 + 11) }
        for batch in 0..<60 {
            // Voices leave and join now and then; the rest keep their history.
            if batch % 13 == 6 {
                ids = Array(ids.dropFirst(9)) + (0..<4).map { UInt64(90_000 + batch * 10 + $0) }
                ids.swapAt(3, 40)
            }
            let t = Float(batch) / 50
            let points = ids.indices.map { i -> Audio3DPoint in
                switch i % 5 {
                case 0: return Audio3DPoint(x: Float(i) + 3 * cos(t), y: 0, z: -3 * sin(t * Float(i)))
                case 1:
                    return Audio3DPoint(
                        x: Float(bitPattern: UInt32(truncatingIfNeeded: random.next())),
                        y: Float(bitPattern: UInt32(truncatingIfNeeded: random.next())),
                        z: .nan)
                case 2: return Audio3DPoint(x: 1e30 * t, y: -.infinity, z: -0.0)
                default: return Audio3DPoint(x: Float(i) * t, y: 1.5, z: Float(batch))
                }
            }
            var packed = CaptureEncoder()
            fast.encode(count: ids.count, id: { ids[$0] }, position: { points[$0] }, into: &packed)
            var expected = CaptureEncoder()
            plain.encode(ids: ids, points: points, into: &expected)
            #expect(packed.bytes == expected.bytes, "batch \(batch)")
        }
    }

    @Test func anEmptyBatchIsItsFlagAndCount() {
        var fast = MoveBatchCoding()
        var packed = CaptureEncoder()
        fast.encode(count: 0, id: { _ in 0 }, position: { _ in .zero }, into: &packed)
        #expect(packed.bytes == [1])  // no voices, as before: "the same voices"
        var plain = Reference()
        var expected = CaptureEncoder()
        plain.encode(ids: [], points: [], into: &expected)
        #expect(packed.bytes == expected.bytes)
    }
}
