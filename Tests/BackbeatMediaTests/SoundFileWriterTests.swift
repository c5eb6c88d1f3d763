import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// What Backbeat writes is the same for the same audio, and standard readers take it without complaint.
@Suite struct SoundFileWriterTests {
    /// One scene, a chord of two sine tones, rendered to a `.file` output.
    private static func renderScene(to url: URL) throws {
        let engine = try AudioEngine(output: .file(url: url, sampleRate: 48_000))
        let low = try SoundEffect(
            buffer: TestSignal.sine(frequency: 220, duration: MediaTime(seconds: 0.2), amplitude: 0.4), name: "low",
            engine: engine)
        let high = try SoundEffect(
            buffer: TestSignal.sine(frequency: 660, duration: MediaTime(seconds: 0.2), amplitude: 0.3), name: "high",
            engine: engine)
        low.play(pan: -0.5)
        high.play(pan: 0.5)
        _ = try engine.render(frames: 14_400)
        engine.shutdown()
    }

    /// The file's RIFF chunks in order, as (id, body).
    private static func chunks(_ data: Data) throws -> [(id: String, body: [UInt8])] {
        let bytes = [UInt8](data)
        try #require(
            bytes.count >= 12 && bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WAVE".utf8))
        #expect(Int(u32(bytes, 4)) == bytes.count - 8, "the RIFF size covers the whole file")
        var result: [(String, [UInt8])] = []
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = Int(u32(bytes, offset + 4))
            try #require(offset + 8 + size <= bytes.count, "chunk at \(offset) runs past the end")
            result.append(
                (
                    String(decoding: bytes[offset..<offset + 4], as: UTF8.self),
                    Array(bytes[offset + 8..<offset + 8 + size])
                ))
            offset += 8 + size + size % 2
        }
        #expect(offset == bytes.count, "no bytes after the last chunk")
        return result
    }

    private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    private static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }

    @Test("The same scene rendered twice to a .file output gives the same bytes, in different wall-clock seconds")
    func sameRenderSameBytes() throws {
        try withTemporaryDirectory { dir in
            let first = dir.appendingPathComponent("first.wav")
            let second = dir.appendingPathComponent("second.wav")
            try Self.renderScene(to: first)
            // A header stamped with the wall-clock time (libsndfile's PEAK chunk, in seconds) would differ now.
            let start = time(nil)
            while time(nil) == start { Thread.sleep(forTimeInterval: 0.01) }
            try Self.renderScene(to: second)
            let a = try Data(contentsOf: first)
            let b = try Data(contentsOf: second)
            #expect(a.count > 14_400 * 8)
            #expect(a == b)
        }
    }

    @Test("A .file output's WAV header: IEEE float with an 18-byte fmt chunk, a fact chunk, no PEAK chunk")
    func fileOutputHeader() throws {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("scene.wav")
            try Self.renderScene(to: url)
            let chunks = try Self.chunks(try Data(contentsOf: url))
            #expect(chunks.map(\.id) == ["fmt ", "fact", "data"])
            let fmt = try #require(chunks.first { $0.id == "fmt " }).body
            // WAVE_FORMAT_IEEE_FLOAT is not PCM: its fmt chunk carries cbSize (0), 18 bytes in all.
            try #require(fmt.count == 18)
            #expect(Self.u16(fmt, 0) == 3, "WAVE_FORMAT_IEEE_FLOAT")
            #expect(Self.u16(fmt, 2) == 2)
            #expect(Self.u32(fmt, 4) == 48_000)
            #expect(Self.u32(fmt, 8) == 48_000 * 2 * 4)
            #expect(Self.u16(fmt, 12) == 8)
            #expect(Self.u16(fmt, 14) == 32)
            #expect(Self.u16(fmt, 16) == 0, "cbSize")
            let fact = try #require(chunks.first { $0.id == "fact" }).body
            let data = try #require(chunks.first { $0.id == "data" }).body
            #expect(Int(Self.u32(fact, 0)) == data.count / 8, "fact holds the frame count")
            #expect(data.count == 14_400 * 8)
        }
    }

    @Test("Float WAV keeps its tags in a LIST INFO chunk, read back by libsndfile")
    func floatWAVKeepsTags() async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("tagged.wav")
            let tags = AudioTags(
                title: "Theme", artist: "Band", albumTitle: "OST", genre: "Chip", trackNumber: 4, date: "2024")
            let source = Fixtures.music(seconds: 0.1)
            try await Media.write(source, to: url, as: .wav, tags: tags)
            let read = try await AudioAsset(url: url).load(.tags)
            #expect(read.title == "Theme")
            #expect(read.artist == "Band")
            #expect(read.albumTitle == "OST")
            #expect(read.genre == "Chip")
            #expect(read.date == "2024")
            #expect(try Media.read(url).floats == source.interleavedFloats)
            #expect(try Self.chunks(try Data(contentsOf: url)).map(\.id) == ["fmt ", "fact", "LIST", "data"])
        }
    }

    @Test(
        "Float AIFF and CAF carry no PEAK chunk, so equal audio gives equal files",
        arguments: [AudioFileType.aiff, .caf])
    func noPeakChunk(type: AudioFileType) async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("peakless.\(type.pathExtension)")
            try await Media.write(Fixtures.music(seconds: 0.1), to: url, as: type)
            // AIFF's chunk is "PEAK", CAF's "peak"; either would sit in the header, before the samples.
            let header = String(decoding: try Data(contentsOf: url).prefix(256), as: UTF8.self).lowercased()
            #expect(!header.contains("peak"))
        }
    }

    @Test("sox reads Backbeat's WAV files without a warning", arguments: [AudioFormat.CommonFormat.float32, .int16])
    func soxReadsWithoutWarning(sample: AudioFormat.CommonFormat) async throws {
        try await withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("out.wav")
            if sample == .float32 {
                try Self.renderScene(to: url)
            } else {
                try await Media.write(Media.int16Signal(frames: 4_800), to: url, as: .wav)
            }
            let result = try runTool("sox", ["--i", url.path])
            #expect(result.status == 0)
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            #expect(
                result.stdout.contains(sample == .float32 ? "32-bit Floating Point PCM" : "16-bit Signed Integer PCM"))
        }
    }
}
