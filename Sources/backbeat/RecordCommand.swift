import ArgumentParser
import Backbeat
import Foundation

/// `backbeat record OUT.wav --duration SECONDS [--device NAME]`: a capture device into a file.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record from a capture device (a microphone, or a sink's monitor) into an audio file.",
        discussion: """
            Captures 16-bit stereo at 48 kHz from the default capture device, or --device NAME (as
            `backbeat info` lists capture devices), for --duration seconds, into OUT: WAV, AIFF, CAF, FLAC,
            Ogg Vorbis or Ogg Opus by its extension (replacing OUT). The file is written to a temporary file
            and renamed when complete: a failed recording leaves no file. Errors are one line on standard
            error, exit status 1.
            """)

    @Argument(help: "The file to write (.wav, .aiff, .caf, .flac, .ogg, .opus).")
    var output: String

    @Option(parsing: .unconditional, help: "Seconds to record (above 0, at most 86400).")
    var duration: String

    @Option(parsing: .unconditional, help: "The capture device's name (default: the system's default).")
    var device: String?

    static let maximumSeconds: Double = 86_400

    func run() async throws {
        do {
            let url = URL(fileURLWithPath: output)
            let seconds = try Self.parseDuration(duration)
            guard let type = AudioFileType(pathExtension: url.pathExtension) else {
                throw BackbeatError(
                    .unsupportedFormat, operation: "record", url: url,
                    reason:
                        "cannot tell the container from \"\(url.pathExtension)\" (use wav, aiff, caf, flac, ogg or opus)"
                )
            }
            if let device, device.isEmpty || device.utf8.count > 1_024 {
                throw BackbeatError(.invalidArgument, operation: "record", reason: "--device needs a device name")
            }
            let capture = try AudioCapture(
                device: device.map(AudioCaptureDevice.init(name:)),
                format: AudioFormat(sampleRate: 48_000, channelCount: 2, commonFormat: .int16))
            defer { capture.close() }
            try await capture.record(to: url, fileType: type, forDuration: seconds, overwrite: true)
        } catch {
            printError(error)
            throw ExitCode.failure
        }
    }

    /// A number of seconds above 0 and at most a day, as a MediaTime.
    static func parseDuration(_ text: String) throws -> MediaTime {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0,
            value <= maximumSeconds
        else {
            throw BackbeatError(
                .invalidArgument, operation: "record",
                reason: "--duration needs a number of seconds above 0 and at most 86400, got \"\(text)\"")
        }
        return MediaTime(seconds: value)
    }
}
