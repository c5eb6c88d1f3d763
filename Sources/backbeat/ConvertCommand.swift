import ArgumentParser
import Backbeat
import Foundation

struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert an audio file, like afconvert: the container comes from OUT's extension.",
        discussion: """
            Presets: cd (44.1 kHz 16-bit stereo PCM), passthrough (byte-exact copy), vorbis (Ogg Vorbis), flac.
            Without a preset, --rate, --channels and --format override the source's values.
            Writes wav, aiff, caf, flac and ogg. Exits 0 only on success; a failed conversion leaves no file.
            """)

    @Argument(help: "The source file.")
    var input: String

    @Argument(help: "The file to write (.wav, .aiff, .caf, .flac, .ogg, .opus).")
    var output: String

    @Option(help: "cd, passthrough, vorbis or flac.")
    var preset: String?

    @Option(help: "Output sample rate in Hz.")
    var rate: Int?

    @Option(help: "Output channel count.")
    var channels: Int?

    @Option(help: "Output sample type: int16 or float32.")
    var format: String?

    @Option(help: "Ogg Vorbis quality from -0.1 to 1 (default 0.5).")
    var quality: Double?

    @Flag(help: "Replace OUT if it exists.")
    var overwrite = false

    @Flag(name: .customLong("no-progress"), help: "Never draw the progress bar.")
    var noProgress = false

    func validate() throws {
        if preset != nil, rate != nil || channels != nil || format != nil {
            throw ValidationError("--preset cannot be combined with --rate, --channels or --format")
        }
        if let preset, AssetExportSession.Preset(name: preset) == nil {
            throw ValidationError("unknown preset \"\(preset)\" (use cd, passthrough, vorbis or flac)")
        }
        if let format, AudioFormat.CommonFormat(rawValue: format) == nil {
            throw ValidationError("unknown format \"\(format)\" (use int16 or float32)")
        }
    }

    func resolvedPreset() -> AssetExportSession.Preset {
        if let name = preset, var p = AssetExportSession.Preset(name: name) {
            if case .oggVorbis = p, let quality { p = .oggVorbis(quality: quality) }
            return p
        }
        return .custom(
            sampleRate: rate, channelCount: channels,
            commonFormat: format.flatMap(AudioFormat.CommonFormat.init(rawValue:)), quality: quality)
    }

    func run() async throws {
        let asset: AudioAsset
        do {
            asset = try commandLineAsset(input)
        } catch {
            printError(error)
            throw ExitCode.failure
        }
        let session = AssetExportSession(asset: asset, preset: resolvedPreset())
        let showProgress = !noProgress && isatty(STDERR_FILENO) != 0
        let bar = showProgress ? Task { await ProgressBar.draw(session) } : nil
        do {
            try await session.export(to: URL(fileURLWithPath: output), overwrite: overwrite)
            bar?.cancel()
            await bar?.value
            if showProgress { ProgressBar.finish(done: true) }
        } catch {
            bar?.cancel()
            await bar?.value
            if showProgress { ProgressBar.finish(done: false) }
            printError(error)
            throw ExitCode.failure
        }
    }
}

/// A one-line progress bar on standard error.
enum ProgressBar {
    static func draw(_ session: AssetExportSession) async {
        while !Task.isCancelled {
            render(session.progress)
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    static func render(_ progress: Double) {
        let width = 40
        let filled = Int(progress * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardError.write(Data("\r[\(bar)] \(Int(progress * 100))%".utf8))
    }

    /// Completes the bar, or erases it so an error stays on one clean line.
    static func finish(done: Bool) {
        if done {
            render(1)
            FileHandle.standardError.write(Data("\n".utf8))
        } else {
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        }
    }
}
