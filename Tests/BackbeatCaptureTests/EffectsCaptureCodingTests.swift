import BackbeatCapture
import BackbeatEffects
import BackbeatMedia
import Testing

/// A play's optional time and point, and the one-byte codes, are written
/// without the encoder's generic calls (they looked up type metadata on every
/// play): the bytes must stay those the generic calls wrote, which every
/// capture already on disk holds.
@Suite("Effects capture coding: the play record's fast encoders write the format's bytes")
struct EffectsCaptureCodingTests {
    private let times: [MediaTime?] = [
        nil, MediaTime(value: 48_123, timescale: 48_000), MediaTime(value: -1, timescale: 1),
    ]
    private let points: [Audio3DPoint?] = [nil, Audio3DPoint(x: 1.5, y: -0.0, z: 1e30)]

    @Test func anOptionalTimeIsWrittenAsAppendOptionalWritesIt() throws {
        for time in times {
            var fast = CaptureEncoder()
            EffectsCaptureCoding.encode(time, into: &fast)
            var generic = CaptureEncoder()
            generic.appendOptional(time) { EffectsCaptureCoding.encode($1, into: &$0) }
            #expect(fast.bytes == generic.bytes)
            var decoder = CaptureDecoder(fast.bytes[...])
            #expect(try EffectsCaptureCoding.optionalTime(&decoder) == time)
            #expect(decoder.isAtEnd)
        }
    }

    @Test func anOptionalPointIsWrittenAsAppendOptionalWritesIt() throws {
        for point in points {
            var fast = CaptureEncoder()
            EffectsCaptureCoding.encode(point, into: &fast)
            var generic = CaptureEncoder()
            generic.appendOptional(point) { EffectsCaptureCoding.encode($1, into: &$0) }
            #expect(fast.bytes == generic.bytes)
            var decoder = CaptureDecoder(fast.bytes[...])
            let read = try EffectsCaptureCoding.optionalPoint(&decoder)
            #expect(
                read.map { [$0.x.bitPattern, $0.y.bitPattern, $0.z.bitPattern] }
                    == point.map { [$0.x.bitPattern, $0.y.bitPattern, $0.z.bitPattern] })
            #expect(decoder.isAtEnd)
        }
    }

    @Test func aByteIsWrittenAsTheGenericFixedWidthWriterWritesIt() throws {
        // In a generic context the call is the generic writer's, not the byte's own.
        func generic<T: FixedWidthInteger>(_ value: T, into encoder: inout CaptureEncoder) {
            encoder.appendFixed(value)
        }
        let codes: [UInt8] = [0, 4, 0x80, 0xFF]
        var fast = CaptureEncoder()
        var slow = CaptureEncoder()
        for code in codes {
            fast.appendFixed(code)
            generic(code, into: &slow)
        }
        #expect(fast.bytes == codes)
        #expect(slow.bytes == codes)
    }
}
