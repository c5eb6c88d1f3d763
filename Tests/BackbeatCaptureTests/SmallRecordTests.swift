import Backbeat
import BackbeatCapture
import BackbeatEffects
import BackbeatEngine
import BackbeatTesting
import Foundation
import Testing

/// A play's record is written straight into the capture's block
/// (``CaptureFileWriter/append(_:frame:maximumPayloadBytes:_:)``) rather
/// than through an encoder, to keep capture's cost on a play low. A reader
/// must not be able to tell: the bytes are the encoder's.
@Suite("Small records: written straight into the block, read as the encoder's")
struct SmallRecordTests {
    private func temporaryURL(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("capture-\(UUID().uuidString)-\(name)")
    }

    /// One record's values, written by either path.
    private struct Values {
        var kind: CaptureKind
        var frame: Int64
        var unsigned: UInt64
        var signed: Int64
        var small: UInt32
        var int: Int
        var flag: Bool
        var float: Float
        var code: UInt8
    }

    private let values: [Values] = [
        Values(
            kind: CaptureKind(0x103), frame: 0, unsigned: 0, signed: 0, small: 0, int: 0, flag: false, float: 0, code: 0
        ),
        Values(
            kind: CaptureKind(0x3FF), frame: 48_000 * 3_600 * 24, unsigned: .max, signed: .min, small: .max, int: .max,
            flag: true,
            float: -0.0, code: 0xFF),
        // A frame back (a negative delta), and values either side of a varint's byte.
        Values(
            kind: CaptureKind(0x7F), frame: 12, unsigned: 0x80, signed: -64, small: 0x7F, int: -1, flag: true,
            float: .nan, code: 0x80),
        Values(
            kind: CaptureKind(0x80), frame: 12, unsigned: 0x7F, signed: 63, small: 0x80, int: .min, flag: false,
            float: .infinity, code: 1),
    ]

    /// Records read back from `url`: kind, frame and payload of each.
    private func records(_ url: URL) throws -> [(CaptureKind, Int64, [UInt8])] {
        let reader = try CaptureFileReader(url: url)
        let all = reader.readAll()
        #expect(reader.damage == nil)
        return all.map { ($0.kind, $0.frame, Array($0.payload)) }
    }

    @Test func aSmallRecordIsTheRecordTheEncoderWrites() throws {
        let viaEncoder = temporaryURL("encoder.bbcap")
        let direct = temporaryURL("direct.bbcap")
        defer {
            try? FileManager.default.removeItem(at: viaEncoder)
            try? FileManager.default.removeItem(at: direct)
        }
        let slow = try CaptureFileWriter(url: viaEncoder)
        let fast = try CaptureFileWriter(url: direct)
        // Enough to fill more than the blocks the writer reserves, so one grows.
        let rounds = 2 * CaptureFileWriter.reservedBlockBytes / 60 + 1
        for round in 0..<rounds {
            for v in values {
                let frame = v.frame &+ Int64(round)
                slow.append(v.kind, frame: frame) { e in
                    e.append(v.unsigned)
                    e.append(v.signed)
                    e.append(v.small)
                    e.append(v.int)
                    e.append(v.flag)
                    e.append(v.float)
                    e.appendFixed(v.code)
                }
                fast.append(v.kind, frame: frame, maximumPayloadBytes: 10 + 10 + 5 + 10 + 1 + 4 + 1) { e in
                    e.append(v.unsigned)
                    e.append(v.signed)
                    e.append(v.small)
                    e.append(v.int)
                    e.append(v.flag)
                    e.append(v.float)
                    e.appendFixed(v.code)
                }
            }
        }
        try slow.close()
        try fast.close()
        let expected = try records(viaEncoder)
        let read = try records(direct)
        #expect(read.count == rounds * values.count)
        #expect(read.count == expected.count)
        for (a, b) in zip(read, expected) {
            #expect(a.0 == b.0)
            #expect(a.1 == b.1)
            #expect(a.2 == b.2)
        }
    }

    /// Plays on every bus a play can name, with and without a time, a
    /// point and a loop count: each record's payload is what the encoder
    /// wrote for it before plays took the direct path.
    @Test func aPlaysRecordIsTheOneTheEncoderWrote() throws {
        let url = temporaryURL("plays.bbcap")
        defer { try? FileManager.default.removeItem(at: url) }
        struct Play {
            var time: MediaTime?
            var position: Audio3DPoint?
            var looping: Looping
            var priority: Int
            var bus: Bus?
        }
        var plays: [Play] = []
        var payloads: [[UInt8]] = []
        try withOfflineEngine { engine in
            let own = engine.makeBus(named: "footsteps")
            let capture = try engine.startCapture(to: url)
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.05)), name: "tone",
                engine: engine)
            plays = [
                Play(time: nil, position: nil, looping: .once, priority: 0, bus: nil),
                Play(
                    time: MediaTime(value: 4_800, timescale: 48_000), position: Audio3DPoint(x: 1, y: -2, z: 0.5),
                    looping: .times(3), priority: -7, bus: engine.masterBus),
                Play(time: nil, position: nil, looping: .forever, priority: Int.max, bus: engine.musicBus),
                Play(time: nil, position: nil, looping: .times(-1), priority: Int.min, bus: engine.effectsBus),
                Play(time: nil, position: Audio3DPoint(x: 0, y: 0, z: -3), looping: .once, priority: 2, bus: own),
            ]
            for play in plays {
                let voice = sound.play(
                    at: play.time, volume: 0.25, pan: -0.5, position: play.position, rate: 1.5, looping: play.looping,
                    priority: play.priority, bus: play.bus)
                // All but the sound's id, which the capture gave it.
                var e = CaptureEncoder()
                e.append(voice.id.raw)
                e.appendOptional(play.time) { EffectsCaptureCoding.encode($1, into: &$0) }
                e.append(Float(0.25))
                e.append(Float(-0.5))
                e.appendOptional(play.position) { EffectsCaptureCoding.encode($1, into: &$0) }
                e.append(Float(1.5))
                EffectsCaptureCoding.encode(play.looping, into: &e)
                e.append(play.priority)
                EffectsCaptureCoding.encode(play.bus, engine: engine, into: &e)
                payloads.append(e.bytes)
                voice.stop()
            }
            try capture.stop()
        }
        let reader = try CaptureFileReader(url: url)
        let all = reader.readAll()
        #expect(reader.damage == nil)
        var declaration = try #require(all.first { $0.kind == .effectsSoundDeclared }).decoder
        var id = CaptureEncoder()
        id.append(try declaration.uint32())
        let recorded = all.filter { $0.kind == .effectsVoicePlay }.map { Array($0.payload) }
        #expect(recorded.count == plays.count)
        for (index, (read, expected)) in zip(recorded, payloads).enumerated() {
            #expect(read == id.bytes + expected, "play \(index)")
        }
    }
}
