import Backbeat
import BackbeatCapture
import BackbeatEffects
import BackbeatEngine
import BackbeatReplay
import BackbeatSupport
import BackbeatTesting
import Foundation
import Testing

/// The records of what BackbeatAcoustics sets on an engine, made here by
/// the engine calls the simulation makes (no level, no Embree): replayed
/// bit for bit, and read back safely when they are cut short or garbled.
@Suite("Acoustics records: the simulation's results replayed, damaged records refused in one line")
struct AcousticsRecordTests {
    static let kinds: [CaptureKind] = [
        .effectsAcousticFilters, .effectsAcousticGains, .effectsRoomReverbs, .effectsAcousticVoice,
    ]

    /// A 0.5 s looping noise.
    static func noise(on engine: AudioEngine) throws -> SoundEffect {
        var state: UInt32 = 99
        let samples = (0..<24_000).map { _ -> Float in
            state = state &* 1_664_525 &+ 1_013_904_223
            return 0.3 * (Float(state >> 8) / Float(1 << 24) * 2 - 1)
        }
        let buffer = try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: samples)
        return try SoundEffect(buffer: buffer, name: "noise", engine: engine)
    }

    /// Renders 0.6 s, capturing it to `capture`, with every acoustics call
    /// the simulation makes (filters with a direction and another room's
    /// send, estimates, room reverbs) and those a game makes on a voice.
    static func render(capture: URL) throws -> [Float] {
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        defer { engine.shutdown() }
        let session = try engine.startCapture(to: capture)
        let sound = try noise(on: engine)
        let a = sound.play(at: nil, volume: 0.7, position: Audio3DPoint(x: 2, y: 0, z: -1), looping: .forever)
        a.reverbBlend = 1
        let b = sound.play(at: nil, volume: 0.4, position: Audio3DPoint(x: -2, y: 0, z: -1), looping: .forever)
        let cave = try AudioEnvironmentReverbParameters(preset: "cave")
        var samples = try engine.render(frames: 4_800)
        // b's estimate of 0 takes it out of earshot (virtual); a NaN changes nothing.
        engine.setAcousticGains([(a, 0.5), (b, 0), (a, .nan)])
        engine.setAcousticFilters(
            [
                AcousticVoiceFilter(
                    voice: a, direct: FilterGains(gain: 0.4, gainLF: 0.9, gainHF: 0.2), send: .open,
                    direction: [0.6, 0, -0.8], reverbRoom: "b"),
                AcousticVoiceFilter(voice: b, direct: FilterGains(gain: 0.8, gainLF: 1, gainHF: 0.5), send: .open),
            ], over: MediaTime(seconds: 0.03))
        engine.setRoomReverbs([RoomReverb(room: "b", reverb: cave, gain: 0.6)], over: nil)
        samples += try engine.render(frames: 9_600)
        // The same again: changes nothing, so nothing is written.
        engine.setRoomReverbs([RoomReverb(room: "b", reverb: cave, gain: 0.6)], over: nil)
        a.setAcousticDirection([-1, 0, 0])
        a.setAcousticFilter(FilterGains(gain: 0.3, gainLF: 1, gainHF: 0.1), over: nil)
        engine.setRoomReverbs([RoomReverb(room: "b", reverb: cave, gain: .nan)], over: MediaTime(seconds: 0.05))
        samples += try engine.render(frames: 14_400)
        try session.stop()
        return samples
    }

    static func replay(_ capture: URL, rendering: Bool = true) throws -> (samples: [Float], result: Replayer.Result) {
        let output = capture.deletingPathExtension().appendingPathExtension("wav")
        let replayer = try Replayer(url: capture, options: Replayer.Options(rendersAudio: rendering))
        let result = try replayer.run(writingTo: rendering ? output : nil)
        guard rendering else { return ([], result) }
        defer { try? FileManager.default.removeItem(at: output) }
        return (try SampleAnalysis.samples(contentsOf: output).samples, result)
    }

    /// Writes `records` to a capture at `url`.
    static func write(_ records: [CaptureRecord], to url: URL) throws {
        let writer = try CaptureFileWriter(url: url)
        for record in records {
            writer.append(record.kind, frame: record.frame) { encoder in
                for byte in record.payload { encoder.appendFixed(byte) }
            }
        }
        try writer.close()
    }

    @Test func theSimulationsCallsReplayBitForBitAndEachIsHeard() throws {
        let scene = try EffectsCaptureScene()
        defer { scene.cleanUp() }
        let capture = scene.url("acoustics.bbcap")
        let live = try Self.render(capture: capture)
        let records = try CaptureFileReader(url: capture).readAll()
        for kind in Self.kinds { #expect(records.contains { $0.kind == kind }, "no record of kind \(kind)") }
        // The repeated room reverb left no record; the NaN estimate is not written.
        #expect(records.filter { $0.kind == .effectsRoomReverbs }.count == 2)
        let gains = try records.filter { $0.kind == .effectsAcousticGains }.map { record in
            var decoder = record.decoder
            return try AcousticsCaptureCoding.gains(&decoder)
        }
        #expect(gains.map(\.count) == [2])
        #expect(firstDifference(try Self.replay(capture).samples, live) == nil)
        for kind in Self.kinds {
            let cut = scene.url("without-\(kind.rawValue).bbcap")
            try Self.write(records.filter { $0.kind != kind }, to: cut)
            #expect(firstDifference(try Self.replay(cut).samples, live) != nil, "without \(kind)")
        }
    }

    /// Every prefix of every acoustics record, and garbled copies of them,
    /// read back as a value within bounds or a ``CaptureFormatError``:
    /// never a trap. A replay of each damaged record stops there with one line.
    @Test func cutShortOrGarbledRecordsAreOneLineOfDamage() throws {
        let scene = try EffectsCaptureScene()
        defer { scene.cleanUp() }
        let capture = scene.url("acoustics.bbcap")
        _ = try Self.render(capture: capture)
        let records = try CaptureFileReader(url: capture).readAll()
        var random = SplitMix64(seed: 32)
        var decoded = 0
        var refused = 0
        for record in records where Self.kinds.contains(record.kind) {
            let payload = Array(record.payload)
            for length in 0..<payload.count {
                #expect(throws: CaptureFormatError.self) { try Self.decode(record.kind, payload[0..<length]) }
            }
            for _ in 0..<2_000 {
                var garbled = payload
                for _ in 0...(random.next() % 3) {
                    garbled[Int(random.next() % UInt64(garbled.count))] = UInt8(truncatingIfNeeded: random.next())
                }
                do {
                    try Self.decode(record.kind, garbled[...])
                    decoded += 1
                } catch is CaptureFormatError {
                    refused += 1
                }
            }
        }
        #expect(decoded > 0 && refused > 0, "decoded \(decoded), refused \(refused)")

        // Through the replay: a record cut by a byte, a NaN estimate, a count past the end.
        let gainsIndex = try #require(records.firstIndex { $0.kind == .effectsAcousticGains })
        let gains = records[gainsIndex]
        var nan = CaptureEncoder()
        nan.append(UInt64(1))
        nan.append(UInt64(1))
        nan.append(Float.nan)
        var huge = CaptureEncoder()
        huge.append(UInt64(1) << 40)
        for (name, payload) in [
            ("cut", gains.payload.dropLast()), ("nan", nan.bytes[...]), ("count", huge.bytes[...]),
        ] {
            var damaged = records
            damaged[gainsIndex] = CaptureRecord(kind: gains.kind, frame: gains.frame, payload: payload)
            let url = scene.url("damaged-\(name).bbcap")
            try Self.write(damaged, to: url)
            let result = try Self.replay(url, rendering: false).result
            let damage = try #require(result.damage, "\(name)")
            #expect(damage.contains("record \(CaptureKind.effectsAcousticGains)"), "\(damage)")
            #expect(!damage.contains("\n"))
        }
    }

    /// Reads a payload of `kind` and checks what it gives is within bounds.
    static func decode(_ kind: CaptureKind, _ payload: ArraySlice<UInt8>) throws {
        var decoder = CaptureDecoder(payload)
        func check(_ gains: FilterGains) {
            for g in [gains.gain, gains.gainLF, gains.gainHF] { #expect(g >= 0 && g <= 1) }
        }
        switch kind {
        case .effectsAcousticFilters:
            for entry in try AcousticsCaptureCoding.filters(&decoder).entries {
                check(entry.direct)
                check(entry.send)
                if let d = entry.direction { #expect(d.x.isFinite && d.y.isFinite && d.z.isFinite) }
            }
        case .effectsAcousticGains:
            for entry in try AcousticsCaptureCoding.gains(&decoder) { #expect(entry.gain >= 0 && entry.gain <= 1) }
        case .effectsRoomReverbs:
            for reverb in try AcousticsCaptureCoding.roomReverbs(&decoder).reverbs {
                #expect(reverb.gain >= 0 && reverb.gain <= 1)
            }
        default:
            switch try AcousticsCaptureCoding.voiceChange(&decoder).change {
            case .filter(let gains, _): check(gains)
            case .direction(let d): if let d { #expect(d.x.isFinite && d.y.isFinite && d.z.isFinite) }
            }
        }
    }
}
