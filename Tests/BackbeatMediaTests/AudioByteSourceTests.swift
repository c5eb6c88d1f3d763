import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatMedia

/// A game's byte source over `Data` that counts what is read, and can lie.
final class CountingSource: AudioByteSource, @unchecked Sendable {
    // @unchecked: the counters are behind `lock`; `data` and the lies are immutable.
    enum Lie {
        case none
        case size(Int64)
        case endsAt(Int)
        case throwsAt(Int)
        case returnsTooMuch
    }
    struct ThrownByTheGame: Error {}

    let data: Data
    let lie: Lie
    private let lock = LockedValueBox<(reads: Int, bytes: Int, largest: Int)>((0, 0, 0))

    init(_ data: Data, lie: Lie = .none) {
        self.data = data
        self.lie = lie
    }

    var reads: Int { lock.withLockedValue { $0.reads } }
    var bytesRead: Int { lock.withLockedValue { $0.bytes } }
    var largestRead: Int { lock.withLockedValue { $0.largest } }

    var size: Int64 {
        get throws {
            if case .size(let size) = lie { return size }
            return Int64(data.count)
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        switch lie {
        case .throwsAt(let at) where offset + Int64(buffer.count) > Int64(at): throw ThrownByTheGame()
        case .endsAt(let at) where offset >= Int64(at): return 0
        case .returnsTooMuch: return buffer.count + 1
        default: break
        }
        let n = try data.read(into: buffer, at: offset)
        lock.withLockedValue { $0 = ($0.reads + 1, $0.bytes + n, max($0.largest, n)) }
        return n
    }
}

@Suite("AudioByteSource")
struct AudioByteSourceTests {
    enum Kind: String, CaseIterable { case vorbis, flac, wav }

    /// Writes a 3 s song of `kind`; returns it with the samples a reference decoder gives
    /// (oggdec for Vorbis; the written signal itself for the lossless formats).
    static func song(_ kind: Kind, in dir: URL) async throws -> (url: URL, reference: [Int16]) {
        switch kind {
        case .vorbis:
            let ogg = try Fixtures.oggencFile(in: dir)
            let wav = dir.appendingPathComponent("oggdec.wav")
            let dec = try runTool("oggdec", ["-Q", "-b", "16", "-e", "0", "-s", "1", "-o", wav.path, ogg.path])
            #expect(dec.status == 0, "oggdec: \(dec.stderr)")
            return (ogg, try Media.read(wav).int16s)
        case .flac, .wav:
            let signal = Media.int16Signal(frames: 44_100 * 3)
            let url = dir.appendingPathComponent("song.\(kind.rawValue)")
            try await Media.write(signal, to: url, as: kind == .flac ? .flac : .wav)
            guard case .int16(let samples) = signal.samples else {
                throw BackbeatError(.invalidArgument, operation: "test")
            }
            return (url, samples)
        }
    }

    /// Every 16-bit sample the asset reader gives for `asset`.
    static func int16s(_ asset: AudioAsset) throws -> [Int16] {
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(
            outputSettings: AudioFormat(sampleRate: 44_100, channelCount: 2, commonFormat: .int16))
        try reader.add(output)
        try reader.startReading()
        var samples: [Int16] = []
        while let buffer = try output.copyNextSampleBuffer() {
            if case .int16(let s) = buffer.samples { samples += s }
        }
        return samples
    }

    @Test(
        "Decoding from Data equals decoding the file, sample for sample, and both equal the reference",
        arguments: Kind.allCases)
    func dataMatchesFile(kind: Kind) async throws {
        try await withTemporaryDirectory { dir in
            let (url, reference) = try await Self.song(kind, in: dir)
            let data = try Data(contentsOf: url)
            let fromFile = try Self.int16s(AudioAsset(url: url))
            let fromData = try Self.int16s(AudioAsset(data: data, name: url.lastPathComponent))
            let source = CountingSource(data)
            let fromSource = try Self.int16s(AudioAsset(source: source, name: "game/\(url.lastPathComponent)"))
            #expect(fromFile.count == 44_100 * 3 * 2)
            #expect(fromData == fromFile)
            #expect(fromSource == fromFile)
            #expect(fromFile == reference)
            #expect(source.bytesRead >= data.count, "every byte came through the source")

            let asset = AudioAsset(data: data, name: url.lastPathComponent)
            let (duration, codec) = try await asset.load(.duration, .codec)
            #expect(duration == MediaTime(frames: 44_100 * 3, sampleRate: 44_100))
            #expect(codec == (try await AudioAsset(url: url).load(.codec)))
        }
    }

    @Test("A player streams a song from a game's source a chunk at a time, never the whole file before it plays")
    func playerStreamsLazily() async throws {
        try await withTemporaryDirectory { dir in
            // A minute of tones and noise: opening reads both ends of an Ogg file (up to 64 KiB each).
            let ogg = dir.appendingPathComponent("theme.ogg")
            try await Media.write(Fixtures.music(seconds: 60), to: ogg, as: .oggVorbis)
            let data = try Data(contentsOf: ogg)
            let source = CountingSource(data)
            let reference = try withOfflineEngine(sampleRate: 44_100) { engine in
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: ogg)])
                player.play()
                return try engine.render(frames: 44_100)
            }
            try withOfflineEngine(sampleRate: 44_100) { engine in
                let item = PlayerItem(asset: AudioAsset(source: source, name: "music/theme.ogg"))
                let player = try QueuePlayer(engine: engine, items: [item])
                player.play()
                let first = try engine.render(frames: 4_410)
                #expect(SampleAnalysis.peak(first) > 0.1, "it plays")
                let atStart = source.bytesRead
                #expect(atStart < data.count / 4, "read \(atStart) of \(data.count) bytes before playing")
                #expect(source.largestRead <= 128 * 1024, "largest read \(source.largestRead) bytes")
                let out = first + (try engine.render(frames: 44_100 - 4_410))
                #expect(out == reference, "the same samples as the file")
                #expect(source.bytesRead < data.count / 2, "1 s of 60 read \(source.bytesRead) bytes")
                #expect(source.reads > 4)
                #expect(item.status == .readyToPlay)
            }
        }
    }

    @Test("A sound effect from encoded bytes in memory plays the same samples as from its file")
    func soundEffectFromData() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("hit.flac")
            try await Media.write(Media.int16Signal(frames: 4_800, sampleRate: 48_000), to: url, as: .flac)
            func rendered(_ make: (AudioEngine) -> SoundEffect) async throws -> [Float] {
                let engine = try AudioEngine(output: .offline())
                defer { engine.shutdown() }
                let sound = make(engine)
                try await sound.preload()
                sound.play()
                return try engine.render(frames: 9_600)
            }
            let fromFile = try await rendered { SoundEffect(contentsOf: url, engine: $0) }
            let data = try Data(contentsOf: url)
            let fromData = try await rendered { SoundEffect(data: data, name: "hit.flac", engine: $0) }
            #expect(SampleAnalysis.peak(fromData) > 0.2)
            #expect(fromData == fromFile)

            let engine = try AudioEngine(output: .offline())
            defer { engine.shutdown() }
            let broken = SoundEffect(data: data.prefix(100), name: "broken.flac", engine: engine)
            let error = await #expect(throws: BackbeatError.self) { try await broken.preload() }
            #expect(error?.description.contains("broken.flac") == true)
        }
    }

    @Test("A source that lies or throws gives a typed error, not a crash")
    func lyingSources() async throws {
        try await withTemporaryDirectory { dir in
            let ogg = try Fixtures.oggencFile(in: dir, seconds: 2)
            let data = try Data(contentsOf: ogg)
            let wav = dir.appendingPathComponent("song.wav")
            try await Media.write(Media.int16Signal(frames: 44_100), to: wav, as: .wav)
            let wavData = try Data(contentsOf: wav)
            let cases: [(Data, CountingSource.Lie, BackbeatError.Code, String)] = [
                (data, .size(-1), .readFailed, "impossible size"),
                (data, .size(.max), .readFailed, "impossible size"),
                (data, .size(0), .emptyFile, "zero bytes"),
                (data, .size(Int64(data.count) * 2), .truncatedFile, "reports a size"),
                (data, .endsAt(data.count / 2), .truncatedFile, "reports a size"),
                (data, .throwsAt(0), .readFailed, "ThrownByTheGame"),
                (data, .returnsTooMuch, .readFailed, "for a read of"),
                (wavData, .endsAt(wavData.count / 2), .truncatedFile, "reports a size"),
                (wavData, .throwsAt(wavData.count / 2), .readFailed, "ThrownByTheGame"),
            ]
            for (bytes, lie, code, words) in cases {
                let asset = AudioAsset(source: CountingSource(bytes, lie: lie), name: "lies.ogg")
                let error = try #require(throws: BackbeatError.self) { _ = try Self.int16s(asset) }
                #expect(error.code == code, "\(lie): \(error)")
                #expect(error.description.contains(words), "\(lie): \(error)")
                #expect(error.description.contains("lies.ogg"), "\(error)")
                #expect(!error.description.contains("\n"))
            }
        }
    }
}
