import Backbeat
import BackbeatMedia
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Decoding throughput against `oggdec` on the same file in the same run
/// (interleaved rounds), Ogg Opus against `opusdec` likewise, the same song decoded from a stored zip entry
/// against the loose file, and the peak memory of converting a 10-minute
/// stereo Ogg to WAV next to the same program's floor.
///
/// The memory figures spawn `backbeat convert`, which reports its own peak
/// (``ChildPeakMemory``), so they run from the `backbeat` executable only.
package struct DecodeSuite: BenchSuite {
    package let name = "decode"
    package let summary =
        "Ogg Vorbis decode vs oggdec -o /dev/null and Ogg Opus decode vs opusdec (same file, interleaved rounds); the song from a stored zip entry vs the loose file; peak RSS of a 10-minute Ogg→WAV convert and of the same child doing nothing"

    /// The suite.
    package init() {}

    package func run(_ options: BenchOptions, log: (String) -> Void) throws -> [Figure] {
        let quick = options.quick
        let seconds = quick ? 10 : 600
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "backbeat-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let ogg = directory.appendingPathComponent("long.ogg")

        log("encoding \(seconds) s of stereo 44.1 kHz music-like signal with Backbeat's writer")
        let encodeStart = monotonicNanoseconds()
        try blocking { try await Self.writeInput(ogg, seconds: seconds) }
        log("encoded in \(String(format: "%.1f", Double(monotonicNanoseconds() - encodeStart) / 1e9)) s")

        guard
            let oggdec = ["/usr/bin/oggdec", "/usr/local/bin/oggdec"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw BenchError("oggdec not found: install vorbis-tools")
        }
        guard
            let zipTool = ["/usr/bin/zip", "/usr/local/bin/zip"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw BenchError("zip not found: install zip")
        }
        let pack = directory.appendingPathComponent("pack.zip")
        guard try spawn(zipTool, ["-q", "-0", "-j", pack.path, ogg.path]).status == 0 else {
            throw BenchError("zip failed")
        }
        let entry = try AudioArchive(url: pack).asset(path: ogg.lastPathComponent)
        let rounds = options.rounds
        let times = try Rounds.interleaved(
            rounds,
            sides: [
                { try self.time { try blocking { try await Self.decode(AudioAsset(url: ogg), as: .int16) } } },
                { try self.time { try blocking { try await Self.decode(AudioAsset(url: ogg), as: .float32) } } },
                {
                    try self.time {
                        let r = try spawn(oggdec, ["-Q", "-o", "/dev/null", ogg.path])
                        guard r.status == 0 else { throw BenchError("oggdec failed") }
                    }
                },
                { try self.time { try blocking { try await Self.decode(entry, as: .int16) } } },
            ]
        ) { round, t in
            log(
                "round \(round): Backbeat int16 \(fmt(t[0])) s, float \(fmt(t[1])) s, oggdec \(fmt(t[2])) s, "
                    + "from pack.zip (stored) \(fmt(t[3])) s")
        }
        let (int16Times, floatTimes, oggdecTimes, archiveTimes) = (times[0], times[1], times[2], times[3])

        let opus = directory.appendingPathComponent("long.opus")
        log("encoding the same signal as \(seconds) s of stereo 48 kHz Ogg Opus with Backbeat's writer")
        try blocking { try await Self.writeInput(opus, seconds: seconds, fileType: .oggOpus, sampleRate: 48_000) }
        guard
            let opusdec = ["/usr/bin/opusdec", "/usr/local/bin/opusdec"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            throw BenchError("opusdec not found: install opus-tools")
        }
        let opusTimes = try Rounds.interleaved(
            rounds,
            sides: [
                { try self.time { try blocking { try await Self.decode(AudioAsset(url: opus), as: .int16) } } },
                {
                    try self.time {
                        let r = try spawn(opusdec, ["--quiet", opus.path, "/dev/null"])
                        guard r.status == 0 else { throw BenchError("opusdec failed") }
                    }
                },
            ]
        ) { round, t in
            log("round \(round): Backbeat Opus int16 \(fmt(t[0])) s, opusdec \(fmt(t[1])) s")
        }
        let throughput = { (times: [Double]) in times.map { Double(seconds) / $0 } }

        log(
            "converting to WAV in a child process, which reports its own peak: backbeat convert \(ogg.lastPathComponent) out.wav"
        )
        let executable = try selfPath()
        let wav = directory.appendingPathComponent("out.wav")
        var peaks: [Double] = []
        var floors: [Double] = []
        for round in 1...rounds {
            peaks.append(try Self.convertPeakMiB(executable: executable, input: ogg, output: wav))
            floors.append(try Self.floorMiB(executable: executable))
            log("round \(round): peak \(fmt(peaks.last!)) MiB, floor (convert --help) \(fmt(floors.last!)) MiB")
        }

        return [
            Figure(key: "seconds_of_audio", value: Double(seconds), unit: "s of stereo 44.1 kHz Ogg Vorbis (q 0.5)"),
            Figure(
                key: "oggdec_x_realtime", rounds: throughput(oggdecTimes),
                unit: "× real time (oggdec -o /dev/null, median of \(rounds) rounds)"),
            Figure(
                key: "backbeat_x_realtime", rounds: throughput(int16Times),
                unit: "× real time (AssetReader, Int16, median of \(rounds) rounds)"),
            Figure(
                key: "ratio_vs_oggdec", rounds: Rounds.ratios(oggdecTimes, int16Times),
                unit: "× oggdec's throughput, Int16 output (goal ≥ 0.9)"),
            Figure(
                key: "float_ratio_vs_oggdec", rounds: Rounds.ratios(oggdecTimes, floatTimes),
                unit: "× oggdec's throughput, Float32 output"),
            Figure(
                key: "ratio_vs_opusdec", rounds: Rounds.ratios(opusTimes[1], opusTimes[0]),
                unit: "× opusdec's throughput (opusdec to /dev/null), Ogg Opus at 48 kHz, Int16 output (goal ≥ 0.9)"),
            Figure(
                key: "archive_ratio", rounds: Rounds.ratios(int16Times, archiveTimes),
                unit: "× the loose file's throughput, the same song from a stored zip entry, Int16 output (goal ≥ 0.95)"
            ),
            Figure(
                key: quick ? "peak_mib_10s" : "peak_mib_10min", rounds: peaks,
                unit:
                    "MiB peak RSS (the child's own VmHWM) of `backbeat convert` Ogg→WAV, \(seconds) s (goal < 32 for 10 min)"
            ),
            Figure(
                key: "floor_mib", rounds: floors,
                unit: "MiB peak RSS of the same child doing nothing (`backbeat convert --help`)"),
        ]
    }

    /// The peak resident memory, in MiB, of `executable convert input output`
    /// (a `backbeat` executable), as the child reads it from its own image.
    ///
    /// - Throws: ``BenchError`` when the conversion fails or reports no peak.
    package static func convertPeakMiB(executable: String, input: URL, output: URL) throws -> Double {
        let run = try ChildPeakMemory.spawnMeasuringPeak(
            executable, ["convert", input.path, output.path, "--overwrite", "--no-progress"])
        guard run.status == 0 else { throw BenchError("backbeat convert failed with status \(run.status)") }
        return run.peakMiB
    }

    /// The peak resident memory, in MiB, of the same child doing nothing:
    /// `executable convert --help`, which loads and starts the same program.
    ///
    /// - Throws: ``BenchError`` when it fails or reports no peak.
    package static func floorMiB(executable: String) throws -> Double {
        let run = try ChildPeakMemory.spawnMeasuringPeak(executable, ["convert", "--help"])
        guard run.status == 0 else { throw BenchError("backbeat convert --help failed with status \(run.status)") }
        return run.peakMiB
    }

    private func fmt(_ v: Double) -> String { String(format: "%.3f", v) }

    private func time(_ body: () throws -> Void) throws -> Double {
        let start = monotonicNanoseconds()
        try body()
        return Double(monotonicNanoseconds() - start) / 1e9
    }

    /// Writes `seconds` of a stereo signal (chords that change every second, plus noise), as Ogg Vorbis at 44.1 kHz unless asked.
    package static func writeInput(
        _ url: URL, seconds: Int, fileType: AudioFileType = .oggVorbis, sampleRate rate: Int = 44_100
    ) async throws {
        let format = AudioFormat(sampleRate: rate, channelCount: 2)
        let writer = try AssetWriter(outputURL: url, fileType: fileType, overwrite: true)
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
                let chord =
                    0.25 * sin(2 * .pi * root * t) + 0.15 * sin(2 * .pi * root * 1.25 * t) + 0.1
                    * sin(2 * .pi * root * 3 * t)
                chunkSamples[2 * i] = Float(chord + noise)
                chunkSamples[2 * i + 1] = Float(chord * 0.8 - noise)
            }
            try input.append(try PCMBuffer(format: format, floats: chunkSamples))
        }
        input.markAsFinished()
        try await writer.finishWriting()
    }

    /// Decodes the whole file with the asset reader, discarding the samples (as oggdec -o /dev/null does).
    static func decode(_ asset: AudioAsset, as sample: AudioFormat.CommonFormat) async throws {
        let native = try await asset.load(.format)
        let reader = try AssetReader(asset: asset)
        let output = AssetReaderTrackOutput(
            outputSettings: AudioFormat(
                sampleRate: native.sampleRate, channelCount: native.channelCount, commonFormat: sample))
        try reader.add(output)
        try reader.startReading()
        var frames = 0
        while let buffer = try output.copyNextSampleBuffer() { frames += buffer.frameCount }
        guard frames > 0 else { throw BenchError("decoded nothing") }
    }
}
