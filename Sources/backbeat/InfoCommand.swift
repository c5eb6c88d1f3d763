import ArgumentParser
import Backbeat
import Foundation

struct InfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract:
            "Print a file's format, duration, tags and artwork; with no file, OpenAL's version, extensions, outputs and capture devices.",
        discussion: """
            Like afinfo. Exits non-zero if any file cannot be read, after reporting the others.
            With --json, prints a JSON array of one object per file that could be read, even for one file
            (an empty array when none could).
            """)

    @Argument(help: "Audio files to describe (Ogg Vorbis, WAV, AIFF, CAF, FLAC, MP3, Opus).")
    var files: [String] = []

    @Flag(help: "Print a JSON array with one object per file, always an array, even for one file.")
    var json = false

    func run() async throws {
        guard !files.isEmpty else { return printOpenALInfo() }
        var objects: [[String: Any]] = []
        var failed = false
        for path in files {
            do {
                let info = try await FileInfo.load(try commandLineAsset(path))
                if json { objects.append(info.jsonObject(path: path)) } else { info.printText(path: path) }
            } catch {
                failed = true
                printError(error)
            }
        }
        if json {
            let data = try JSONSerialization.data(
                withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
        }
        if failed { throw ExitCode.failure }
    }

    private func printOpenALInfo() {
        let caps = AudioEngine.capabilities()
        print("OpenAL: \(caps.version)")
        print("Sources per context: \(caps.maxSources)")
        print("Extensions:")
        for ext in caps.extensions {
            print("  \(ext.isPresent ? "yes" : "NO ") \(ext.name)")
        }
        print("Devices:")
        if caps.playbackDevices.isEmpty { print("  (none)") }
        for name in caps.playbackDevices {
            print("  \(name == caps.defaultDeviceName ? "*" : " ") \(name)")
        }
        if let name = caps.defaultDeviceName { print("Default device: \(name)") }
        print("Capture devices:")
        let captureDefault = AudioCaptureDevice.default
        let captureDevices = AudioCaptureDevice.available
        if captureDevices.isEmpty { print("  (none)") }
        for device in captureDevices {
            print("  \(device == captureDefault ? "*" : " ") \(device.name)")
        }
        print("Outputs:")
        switch caps.defaultDevice {
        case .success(let rate):
            print("  device   available at \(rate) Hz (\(caps.defaultDeviceName ?? "default"))")
        case .failure(let error):
            // The reason alone ("default device: no output device (...)"): the operation and code add nothing here.
            print("  device   unavailable: \(error.reason ?? error.description)")
        }
        print("  offline  available (ALC_SOFT_loopback, rendered on request)")
        print("  file     available (WAV, as fast as possible or paced in real time)")
        if let latency = caps.configuredLatency {
            let ms = latency.duration(atSampleRate: 48_000).seconds * 1000
            print(
                "Latency requested: \(latency) (\(String(format: "%.1f", ms)) ms at 48 kHz, written to OpenAL Soft's config)"
            )
        } else {
            print("Latency requested: decided by ALSOFT_CONF")
        }
        if let measured = caps.measuredLatency {
            print("Latency measured: \(measured)")
        }
        print("HRTF data sets:")
        if caps.hrtfDataSets.isEmpty { print("  (none)") }
        for name in caps.hrtfDataSets {
            print("  \(caps.usableHRTFDataSets.contains(name) ? "yes" : "no ") \(name)")
        }
        print("  (yes: loads at 48 kHz; OpenAL Soft 1.19 runs a data set only at its own sample rate)")
        if let status = caps.defaultDeviceHRTF {
            print("HRTF on the default device: \(status) (engine.outputType or isHRTFEnabled turns it on)")
        }
    }
}

/// Writes one line, `backbeat: <error>`, to standard error.
func printError(_ error: any Error) {
    let line = (error as? BackbeatError)?.description ?? "\(error)"
    FileHandle.standardError.write(Data("backbeat: \(line.replacingOccurrences(of: "\n", with: " "))\n".utf8))
}

/// Writes one line, `backbeat: warning: <message>`, to standard error.
func printWarning(_ message: String) {
    FileHandle.standardError.write(
        Data("backbeat: warning: \(message.replacingOccurrences(of: "\n", with: " "))\n".utf8))
}

/// What `info` reports about one file.
struct FileInfo {
    let container: String
    let codec: String
    let format: AudioFormat
    let frames: Int64
    let duration: MediaTime
    let tags: AudioTags
    /// The loop region fitted to the file (tags whose start is past the end are ignored).
    let loopPoints: LoopPoints?

    static func load(_ asset: AudioAsset) async throws -> FileInfo {
        let (container, codec, format) = try await asset.load(.containerFormat, .codec, .format)
        let (frames, duration, tags) = try await asset.load(.frameCount, .duration, .tags)
        let loopPoints = try await asset.load(.loopPoints)
        return FileInfo(
            container: container, codec: codec, format: format, frames: frames, duration: duration, tags: tags,
            loopPoints: loopPoints)
    }

    func printText(path: String) {
        print("File:        \(path)")
        print("Format:      \(container), \(codec)")
        print("Data format: \(format.channelCount) ch, \(format.sampleRate) Hz")
        print("Frames:      \(frames)")
        print("Duration:    \(duration.formatted) (\(String(format: "%.3f", duration.seconds)) s)")
        let fields: [(String, String?)] = [
            ("Title", tags.title), ("Artist", tags.artist), ("Album", tags.albumTitle),
            ("Album artist", tags.albumArtist),
            ("Genre", tags.genre), ("Composer", tags.composer), ("Track", tags.trackNumber.map(String.init)),
            ("Disc", tags.discNumber.map(String.init)), ("Date", tags.date),
            ("Compilation", tags.isCompilation.map { $0 ? "yes" : "no" }),
        ]
        for case let (name, value?) in fields {
            print("\((name + ":").padding(toLength: 13, withPad: " ", startingAt: 0))\(value)")
        }
        if let loop = loopPoints {
            let rate = format.sampleRate
            print(
                "Loop:        frames \(loop.start)..<\(loop.end) (\(loop.length) frames; "
                    + "\(MediaTime(frames: loop.start, sampleRate: rate).formatted) to "
                    + "\(MediaTime(frames: loop.end, sampleRate: rate).formatted))")
        }
        for (i, art) in tags.artwork.enumerated() {
            print(
                "Artwork \(i + 1):   \(art.mimeType), \(art.width)x\(art.height), \(art.data.count) bytes, type \(art.pictureType)"
            )
        }
        print("")
    }

    func jsonObject(path: String) -> [String: Any] {
        func value(_ v: (any Sendable)?) -> Any { v.map { $0 as Any } ?? NSNull() }
        let tagObject: [String: Any] = [
            "title": value(tags.title), "artist": value(tags.artist), "album": value(tags.albumTitle),
            "albumArtist": value(tags.albumArtist), "genre": value(tags.genre), "composer": value(tags.composer),
            "trackNumber": value(tags.trackNumber), "discNumber": value(tags.discNumber), "date": value(tags.date),
            "compilation": value(tags.isCompilation),
        ]
        return [
            "path": path,
            "format": container,
            "codec": codec,
            "sampleRate": format.sampleRate,
            "channels": format.channelCount,
            "frames": frames,
            "durationSeconds": duration.seconds,
            "tags": tagObject,
            "loop": loopPoints.map { ["start": $0.start, "end": $0.end, "length": $0.length] as [String: Any] }
                ?? NSNull(),
            "artwork": tags.artwork.map {
                ["width": $0.width, "height": $0.height, "mimeType": $0.mimeType, "bytes": $0.data.count]
                    as [String: Any]
            },
        ]
    }
}

/// The asset a command-line argument names: `archive.zip:path/inside` is an
/// entry of a zip archive, anything else a file.
func commandLineAsset(_ argument: String, looping: Looping = .forever) throws -> AudioAsset {
    try AudioArchive.asset(reference: argument, looping: looping)
        ?? AudioAsset(url: URL(fileURLWithPath: argument), looping: looping)
}
