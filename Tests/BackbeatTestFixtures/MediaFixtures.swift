import Backbeat
import BackbeatDesktop
import BackbeatLibrary
import BackbeatSupport
import BackbeatTesting
import Foundation
import Testing

/// Runs a tool and returns its exit status and standard error; the tool must exist.
@discardableResult
package func runTool(_ tool: String, _ arguments: [String], environment: [String: String]? = nil)
    throws -> (status: Int32, stdout: String, stderr: String)
{
    let process = Process()
    // `environment` adds to this process's; an empty value removes a variable.
    if let environment {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }.filter {
            !$0.value.isEmpty
        }
    }
    let path =
        ["/usr/bin/\(tool)", "/usr/local/bin/\(tool)", "/bin/\(tool)"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        } ?? tool
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes before waiting, so a chatty tool cannot block on a full pipe.
    let errData = ThreadSafeData()
    let reader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !errData.isSet { usleep(1000) }
    return (
        process.terminationStatus, String(decoding: outData, as: UTF8.self),
        String(decoding: errData.value, as: UTF8.self)
    )
}

/// A one-shot box for data handed from a reader thread.
package final class ThreadSafeData: @unchecked Sendable {
    // Safe: every access goes through `lock`.
    private let lock = Lock()
    private var data: Data?
    package func set(_ d: Data) {
        lock.lock()
        data = d
        lock.unlock()
    }
    package var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return data != nil
    }
    package var value: Data {
        lock.lock()
        defer { lock.unlock() }
        return data ?? Data()
    }
}

package enum Fixtures {
    /// Writes `seconds` of ``music(seconds:sampleRate:channels:)`` at 48 kHz
    /// to `url` as Ogg Vorbis tagged with `loop`, and returns the file as
    /// decoded, whole: the loop tests' reference.
    package static func loopTaggedOgg(at url: URL, seconds: Double, loop: LoopPoints) async throws -> [Float] {
        var tags = AudioTags()
        tags.loopPoints = loop
        try await Media.write(music(seconds: seconds, sampleRate: 48_000), to: url, as: .oggVorbis, tags: tags)
        let frames = Int(seconds * 48_000)
        let decoder = try AudioDecoders.open(url)
        defer { decoder.close() }
        var file: [Float] = []
        #expect(try decoder.read(frames: frames, into: &file) == frames)
        return file
    }

    /// A stereo test signal: a different sine in each channel plus a little deterministic noise.
    package static func music(seconds: Double, sampleRate: Int = 44_100, channels: Int = 2) -> PCMBuffer {
        let frames = Int((seconds * Double(sampleRate)).rounded())
        var samples = [Float](repeating: 0, count: frames * channels)
        var seed: UInt32 = 12345
        for f in 0..<frames {
            let t = Double(f) / Double(sampleRate)
            for c in 0..<channels {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let noise = (Float(seed >> 8) / Float(1 << 24) - 0.5) * 0.02
                let tone = 0.4 * sin(2 * Double.pi * (440 + 110 * Double(c)) * t) + 0.2 * sin(2 * Double.pi * 3000 * t)
                samples[f * channels + c] = Float(tone) + noise
            }
        }
        return try! PCMBuffer(format: AudioFormat(sampleRate: sampleRate, channelCount: channels), floats: samples)
    }

    /// Writes a WAV with sox's synth and encodes it with oggenc: an Ogg Vorbis file made by the reference tools.
    package static func oggencFile(in directory: URL, seconds: Double = 3, name: String = "reference.ogg") throws -> URL
    {
        let wav = directory.appendingPathComponent("reference-source.wav")
        let ogg = directory.appendingPathComponent(name)
        let sox = try runTool(
            "sox",
            [
                "-n", "-r", "44100", "-c", "2", "-b", "16", wav.path,
                "synth", String(seconds), "sine", "440", "sine", "660", "gain", "-6",
            ])
        #expect(sox.status == 0, "sox: \(sox.stderr)")
        let enc = try runTool("oggenc", ["-Q", "-q", "4", "-o", ogg.path, wav.path])
        #expect(enc.status == 0, "oggenc: \(enc.stderr)")
        return ogg
    }
}

extension BackbeatError.Code {
    /// For `#expect(throws:)` matching on the code alone.
    package func matches(_ error: any Error) -> Bool { (error as? BackbeatError)?.code == self }
}

package enum Media {
    /// Writes `buffer` to `url` with the asset writer.
    package static func write(
        _ buffer: PCMBuffer, to url: URL, as type: AudioFileType, commonFormat: AudioFormat.CommonFormat? = nil,
        tags: AudioTags = AudioTags(), quality: Double = 0.5, overwrite: Bool = false
    ) async throws {
        let writer = try AssetWriter(outputURL: url, fileType: type, overwrite: overwrite)
        writer.metadata = tags
        var settings = buffer.format
        if let commonFormat { settings.commonFormat = commonFormat }
        let input = AssetWriterInput(outputSettings: settings, quality: quality)
        try writer.add(input)
        try writer.startWriting()
        // Append in uneven pieces, as a game would.
        let channels = buffer.format.channelCount
        var start = 0
        var piece = 1000
        let frames = buffer.frameCount
        while start < frames {
            let end = min(frames, start + piece)
            let slice: PCMBuffer
            switch buffer.samples {
            case .float32(let s):
                slice = try PCMBuffer(format: buffer.format, floats: Array(s[start * channels..<end * channels]))
            case .int16(let s):
                slice = try PCMBuffer(format: buffer.format, int16s: Array(s[start * channels..<end * channels]))
            }
            #expect(input.isReadyForMoreMediaData)
            try input.append(slice)
            start = end
            piece = piece == 1000 ? 4567 : 1000
        }
        input.markAsFinished()
        try await writer.finishWriting()
        #expect(writer.status == .completed)
    }

    /// Reads a whole file with the asset reader, checking each buffer's presentation time.
    package static func read(
        _ url: URL, settings: AudioFormat? = nil, timeRange: MediaTimeRange? = nil,
        framesPerBuffer: Int = 4096
    ) throws -> (format: AudioFormat, floats: [Float], int16s: [Int16], buffers: [PCMBuffer]) {
        let reader = try AssetReader(asset: AudioAsset(url: url))
        reader.timeRange = timeRange
        let output = AssetReaderTrackOutput(outputSettings: settings)
        output.framesPerBuffer = framesPerBuffer
        try reader.add(output)
        try reader.startReading()
        var floats: [Float] = []
        var ints: [Int16] = []
        var buffers: [PCMBuffer] = []
        while let buffer = try output.copyNextSampleBuffer() {
            buffers.append(buffer)
            switch buffer.samples {
            case .float32(let s): floats += s
            case .int16(let s): ints += s
            }
        }
        #expect(reader.status == .completed)
        return (try #require(output.outputFormat), floats, ints, buffers)
    }

    /// Deterministic Int16 noise-and-tone, stereo unless asked.
    package static func int16Signal(frames: Int, channels: Int = 2, sampleRate: Int = 44_100) -> PCMBuffer {
        var seed: UInt32 = 7
        var s = [Int16](repeating: 0, count: frames * channels)
        for i in 0..<s.count {
            seed = seed &* 1_103_515_245 &+ 12345
            let tone = 12000 * sin(Double(i / channels) * 0.05)
            s[i] = Int16(clamping: Int(tone) + Int(seed >> 20) - 2048)
        }
        s[0] = .min
        s[1] = .max
        return try! PCMBuffer(
            format: AudioFormat(sampleRate: sampleRate, channelCount: channels, commonFormat: .int16), int16s: s)
    }

    /// A 1,000-frame WAV in `dir` whose data chunk claims 104,000 bytes: a
    /// file that lies about its size.
    package static func lyingWAV(_ dir: URL) async throws -> URL {
        let url = dir.appendingPathComponent("lie.wav")
        try await Media.write(Media.int16Signal(frames: 1000), to: url, as: .wav)
        var bytes = [UInt8](try Data(contentsOf: url))
        let data = try #require((0..<bytes.count - 4).first { bytes[$0..<$0 + 4] == Array("data".utf8)[...] })
        let claimed = UInt32(4000 + 100_000)
        withUnsafeBytes(of: claimed.littleEndian) { bytes.replaceSubrange(data + 4..<data + 8, with: $0) }
        try Data(bytes).write(to: url)
        return url
    }

    /// Files in a directory, hidden ones included.
    package static func listing(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
    }

    package static let png = Data(
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<3000).map { UInt8(($0 * 7) & 0xFF) })
}

/// Writes a mono or stereo buffer as a 32-bit float WAV.
package func writeWAV(_ pcm: PCMBuffer, to url: URL) throws {
    let writer = try SoundFileWriter(
        url: url, type: .wavFloat, sampleRate: pcm.format.sampleRate,
        channelCount: pcm.format.channelCount, overwrite: true)
    try writer.write(pcm.interleavedFloats[...])
    try writer.finish()
}

/// The command-line tool, run as a subprocess: the built `backbeat` binary
/// beside the test bundle.
package enum BackbeatTool {
    /// The path of the built `backbeat` binary.
    package static func binary() throws -> String {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("backbeat"))
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/backbeat"))
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return try #require(found, "build the backbeat tool first (swift build --build-tests)").path
    }

    /// Runs `backbeat` with `arguments`.
    package static func run(_ arguments: [String], environment: [String: String]? = nil)
        throws -> (status: Int32, stdout: String, stderr: String)
    {
        try runTool(try binary(), arguments, environment: environment)
    }
}
