import Backbeat
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Decoding throughput against `oggdec` on the same file in the same run, and
/// the peak memory of converting a 10-minute stereo Ogg to WAV.
///
/// The memory figure spawns `backbeat convert`, so it runs from the
/// `backbeat` executable only.
public struct DecodeSuite: BenchSuite {
    public let name = "decode"
    public let summary = "Ogg Vorbis decode vs oggdec -o /dev/null (same file, same run); peak RSS of a 10-minute Ogg→WAV convert"

    /// The suite.
    public init() {}

    public func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let quick = options.quick
        let seconds = quick ? 10 : 600
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("backbeat-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ogg = directory.appendingPathComponent("long.ogg")

        log("encoding \(seconds) s of stereo 44.1 kHz music-like signal with Backbeat's writer")
        let encodeStart = monotonicNanoseconds()
        try blocking { try await Self.writeInput(ogg, seconds: seconds) }
        log("encoded in \(String(format: "%.1f", Double(monotonicNanoseconds() - encodeStart) / 1e9)) s")

        guard let oggdec = ["/usr/bin/oggdec", "/usr/local/bin/oggdec"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw BenchError("oggdec not found: install vorbis-tools")
        }
        var backbeatInt16: [Double] = [], backbeatFloat: [Double] = [], reference: [Double] = []
        let rounds = 3
        for round in 1...rounds {
            reference.append(try time { let r = try spawn(oggdec, ["-Q", "-o", "/dev/null", ogg.path]); guard r.status == 0 else { throw BenchError("oggdec failed") } })
            backbeatInt16.append(try time { try blocking { try await Self.decode(ogg, as: .int16) } })
            backbeatFloat.append(try time { try blocking { try await Self.decode(ogg, as: .float32) } })
            log("round \(round): oggdec \(fmt(reference.last!)) s, Backbeat int16 \(fmt(backbeatInt16.last!)) s, float \(fmt(backbeatFloat.last!)) s")
        }
        let bestReference = reference.min()!, bestInt16 = backbeatInt16.min()!, bestFloat = backbeatFloat.min()!

        log("converting to WAV in a child process: backbeat convert \(ogg.lastPathComponent) out.wav")
        let wav = directory.appendingPathComponent("out.wav")
        let convert = try spawn(try selfPath(), ["convert", ogg.path, wav.path, "--no-progress"])
        guard convert.status == 0 else { throw BenchError("backbeat convert failed with status \(convert.status)") }
        let peakMiB = Double(convert.usage.ru_maxrss) / 1024  // ru_maxrss is in KiB on Linux

        return [
            Figure(key: "seconds_of_audio", value: Double(seconds), unit: "s of stereo 44.1 kHz Ogg Vorbis (q 0.5)"),
            Figure(key: "oggdec_x_realtime", value: Double(seconds) / bestReference, unit: "× real time (oggdec -o /dev/null, best of \(rounds))"),
            Figure(key: "backbeat_x_realtime", value: Double(seconds) / bestInt16, unit: "× real time (AssetReader, Int16, best of \(rounds))"),
            Figure(key: "ratio_vs_oggdec", value: bestReference / bestInt16, unit: "× oggdec's throughput, Int16 output (goal ≥ 0.9)"),
            Figure(key: "float_ratio_vs_oggdec", value: bestReference / bestFloat, unit: "× oggdec's throughput, Float32 output"),
            Figure(key: quick ? "peak_mib_10s" : "peak_mib_10min", value: peakMiB,
                   unit: "MiB peak RSS of `backbeat convert` Ogg→WAV, \(seconds) s (goal < 32 for 10 min)"),
        ]
    }

    private func fmt(_ v: Double) -> String { String(format: "%.3f", v) }

    private func time(_ body: () throws -> Void) throws -> Double {
        let start = monotonicNanoseconds()
        try body()
        return Double(monotonicNanoseconds() - start) / 1e9
    }

    /// Writes `seconds` of a stereo signal (chords that change every second, plus noise) as Ogg Vorbis.
    static func writeInput(_ url: URL, seconds: Int) async throws {
        let rate = 44_100
        let format = AudioFormat(sampleRate: rate, channelCount: 2)
        let writer = try AssetWriter(outputURL: url, fileType: .oggVorbis, overwrite: true)
        writer.metadata = AudioTags(title: "Bench input", artist: "Backbeat")
        let input = AssetWriterInput(outputSettings: format, quality: 0.5)
        try writer.add(input)
        try writer.startWriting()
        var seed: UInt32 = 1
        let chunk = 4410
        var chunkSamples = [Float](repeating: 0, count: chunk * 2)
        for block in 0..<(seconds * rate / chunk) {
            let second = block * chunk / rate
            let root = 110.0 * pow(2, Double((second * 7) % 12) / 12)
            for i in 0..<chunk {
                let t = Double(block * chunk + i) / Double(rate)
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let noise = (Double(seed >> 8) / Double(1 << 24) - 0.5) * 0.05
                let chord = 0.25 * sin(2 * .pi * root * t) + 0.15 * sin(2 * .pi * root * 1.25 * t) + 0.1 * sin(2 * .pi * root * 3 * t)
                chunkSamples[2 * i] = Float(chord + noise)
                chunkSamples[2 * i + 1] = Float(chord * 0.8 - noise)
            }
            try input.append(try PCMBuffer(format: format, floats: chunkSamples))
        }
        input.markAsFinished()
        try await writer.finishWriting()
    }

    /// Decodes the whole file with the asset reader, discarding the samples (as oggdec -o /dev/null does).
    static func decode(_ url: URL, as sample: AudioFormat.CommonFormat) async throws {
        let asset = AudioAsset(url: url)
        let native = try await asset.load(.format)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(outputSettings: AudioFormat(sampleRate: native.sampleRate, channelCount: native.channelCount, commonFormat: sample))
        try reader.add(output)
        try reader.startReading()
        var frames = 0
        while let buffer = try output.copyNextSampleBuffer() { frames += buffer.frameCount }
        guard frames > 0 else { throw BenchError("decoded nothing") }
    }
}

