import Backbeat
import BackbeatCapture
import BackbeatEffects
import BackbeatReplay
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@Suite("Capture of a busy scene: a thousand moving emitters")
struct EmitterCaptureTests {
    /// Packed batches read back to the exact bits, whatever the voices and the values.
    @Test func moveBatchesReadBackExactly() throws {
        var writer = MoveBatchCoding()
        var reader = MoveBatchCoding()
        var random = SystemRandomNumberGenerator()
        var ids: [UInt64] = (0..<50).map { UInt64($0 * 3 + 1_000) }
        for batch in 0..<40 {
            if batch % 9 == 4 { ids = Array(ids.dropFirst(5)) + (0..<7).map { UInt64(5_000 + batch * 10 + $0) } }
            let points = ids.indices.map { i -> Audio3DPoint in
                if batch == 7 && i == 3 { return Audio3DPoint(x: .nan, y: -.infinity, z: -0.0) }
                let t = Float(batch) / 50
                return Audio3DPoint(
                    x: Float(i) + sin(t), y: Float.random(in: -1...1, using: &random), z: cos(t * Float(i)))
            }
            var encoder = CaptureEncoder()
            writer.encode(count: ids.count, id: { ids[$0] }, position: { points[$0] }, into: &encoder)
            var decoder = CaptureDecoder(encoder.bytes[...])
            let (readIDs, readPoints) = try reader.decode(&decoder)
            #expect(decoder.isAtEnd)
            if let readIDs { #expect(readIDs == ids) }
            #expect(readPoints.map(\.x.bitPattern) == points.map(\.x.bitPattern))
            #expect(readPoints.map(\.y.bitPattern) == points.map(\.y.bitPattern))
            #expect(readPoints.map(\.z.bitPattern) == points.map(\.z.bitPattern))
        }
    }

    /// Issue 32, item 4: 1,000 emitters moved 50 times a second through
    /// `moveVoices`, random sound events, a snapshot, adaptive music
    /// transitions and a session interruption, captured and replayed
    /// sample for sample. Renders 3 s (the least that holds a snapshot's
    /// attack and release and two quantized transitions among the moves)
    /// and prints the capture's size per minute.
    @Test func aThousandMovingEmittersReplayBitForBit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("emitters-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = directory.appendingPathComponent("emitters.bbcap")
        let seconds = 3
        let original = try renderEmitters(seconds: seconds, capture: capture, directory: directory)
        let bytes = try FileManager.default.attributesOfItem(atPath: capture.path)[.size] as? Int ?? 0
        // The sounds are PCM made in code, kept whole in the capture once;
        // what grows with time is the rest (moves above all).
        let records = try CaptureFileReader(url: capture).readAll()
        let declared = records.filter { $0.kind == .effectsSoundDeclared }.reduce(0) { $0 + $1.payload.count }
        let moves = records.filter { $0.kind == .effectsVoiceMoveBatch }
        let moveBytes = moves.reduce(0) { $0 + $1.payload.count }
        #expect(moves.count == seconds * 50)
        print(
            "capture of 1,000 emitters moved 50 times a second: \(bytes) bytes for \(seconds) s, "
                + "\(declared) of them the sounds; \((bytes - declared) * 60 / seconds) bytes per minute besides, "
                + "moves \(moveBytes * 60 / seconds) bytes per minute (\(moveBytes / moves.count / 1_000) bytes a voice a move)"
        )

        let output = directory.appendingPathComponent("replay.wav")
        _ = try Replayer(url: capture).run(writingTo: output)
        let replayed = try SampleAnalysis.samples(contentsOf: output).samples
        #expect(firstDifference(replayed, original) == nil)
        #expect(original.contains { abs($0) > 0.01 })
    }

    private func renderEmitters(seconds: Int, capture: URL, directory: URL) throws -> [Float] {
        let rate = 48_000
        let engine = try AudioEngine(output: .offline(sampleRate: rate, channels: 2), maximumVoices: 1_100)
        defer { engine.shutdown() }
        let session = try engine.startCapture(to: capture)
        let tones = try [220.0, 330, 495, 742].map { try toneEffect($0, on: engine) }
        var emitters: [Voice] = []
        var centres: [Audio3DPoint] = []
        for i in 0..<1_000 {
            let centre = Audio3DPoint(x: Float(i % 40) * 4 - 80, y: 0, z: Float(i / 40) * 4 - 50)
            centres.append(centre)
            emitters.append(
                tones[i % tones.count].play(
                    at: nil, volume: 0.3, position: centre, rate: 1 + Float(i % 7) / 50, looping: .forever))
        }
        let hits = try SoundEvent(name: "hits", sounds: tones, mode: .random, seed: 32)
        hits.randomization = .init(volumeDecibels: -9...0, pitchCents: -300...300, pan: -1...1)
        var muffle = MixSnapshot(name: "muffle")
        muffle.buses["effects"] = .init(volume: 0.5, filter: .lowPass(cutoff: 1_000))
        var active: ActiveMixSnapshot?

        func stem(_ name: String, _ frequency: Double) throws -> MusicStem {
            let url = directory.appendingPathComponent(name)
            try Songs.write(Songs.sineFrames(0..<(2 * rate), frequency: frequency, amplitude: 0.15), to: url)
            return MusicStem(layer: "base", asset: AudioAsset(url: url))
        }
        let tempo = try TempoMap(beatsPerMinute: 150)
        let music = try AdaptiveMusicPlayer(
            engine: engine,
            sections: [
                MusicSection(name: "explore", stems: [try stem("explore.wav", 196)], tempo: tempo),
                MusicSection(name: "combat", stems: [try stem("combat.wav", 294)], tempo: tempo),
            ])
        try music.play(section: "explore")

        let perMove = rate / 50
        var samples: [Float] = []
        var positions = centres
        for move in 0..<(seconds * 50) {
            let t = Float(move) / 50
            for i in positions.indices {
                let phase = t * (0.5 + Float(i % 5) / 10) + Float(i)
                positions[i] = Audio3DPoint(
                    x: centres[i].x + 1.5 * cos(phase), y: centres[i].y, z: centres[i].z + 1.5 * sin(phase))
            }
            try engine.moveVoices(emitters, to: positions)
            if move % 7 == 3 { hits.play(volume: 0.5) }
            if move == 40 { active = try engine.activate(muffle, over: MediaTime(seconds: 0.3), curve: .exponential) }
            if move == 100 { try active?.release(over: MediaTime(seconds: 0.4)) }
            if move == 30 {
                try music.transition(to: "combat", quantization: .beat, style: .crossfade(MediaTime(seconds: 0.2)))
            }
            if move == 110 {
                try engine.session.setCategory(.playback)
                engine.session.setActive(true)
                engine.session.post(.interruptionBegan)
            }
            if move == 120 {
                engine.session.post(.interruptionEnded(shouldResume: true))
                try music.transition(to: "explore", quantization: .beat)
            }
            samples += try engine.render(frames: perMove)
        }
        try session.stop()
        return samples
    }
}
