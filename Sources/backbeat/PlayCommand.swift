import ArgumentParser
import Backbeat
import Foundation

/// `backbeat play FILE [--output OUT.wav] [--duration SECONDS] [--loops N]`: afplay, with loop points.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract:
            "Play an audio file through the output device, or render it to a WAV file, honouring its loop points.",
        discussion: """
            Like afplay. Without loop points it plays to the file's end, or stops after --duration.
            With loop points (LOOPSTART with LOOPLENGTH or LOOPEND tags) and --duration: the intro, then the loop
            until the duration is reached. With loop points and no --duration: the intro, the loop --loops times
            (default 1), then the tail. --loops is ignored for a file without loop points.
            --output renders offline, faster than real time, to a stereo 32-bit float WAV at the file's rate
            (replacing OUT); a failed render leaves no file. Errors are one line on standard error, exit status 1.
            """)

    @Argument(help: "The file to play (Ogg Vorbis, WAV, AIFF, CAF, FLAC, MP3, Opus).")
    var file: String

    @Option(help: "Render into this WAV file instead of playing through the device.")
    var output: String?

    @Option(parsing: .unconditional, help: "Stop after this many seconds (above 0, at most 86400).")
    var duration: String?

    @Option(
        parsing: .unconditional,
        help: "Times to play the loop region when there is no --duration (1 to 10000; default 1).")
    var loops: String?

    func run() async throws {
        do {
            let plan = try await PlayPlan.make(
                file: file, duration: duration, loops: loops)
            if let output {
                try await plan.render(to: URL(fileURLWithPath: output))
                // Say where the sound went, as the drum pad does: a render is otherwise silent.
                let seconds = Double(plan.frames) / Double(plan.sampleRate)
                print("Sound went to \(output) (\(String(format: "%.2f", seconds)) s at \(plan.sampleRate) Hz).")
            } else {
                try await plan.playThroughDevice()
            }
        } catch {
            printError(error)
            throw ExitCode.failure
        }
    }
}

/// What `play` plays: the asset with its looping, and how long.
struct PlayPlan {
    /// The file, or `archive.zip:path/inside`.
    let file: String
    let url: URL
    let sampleRate: Int
    let looping: Looping
    /// Frames to play at `sampleRate`.
    let frames: Int64

    static let maximumSeconds: Double = 86_400
    static let maximumLoops = 10_000

    static func invalid(_ reason: String) -> BackbeatError {
        BackbeatError(.invalidArgument, operation: "play", reason: reason)
    }

    /// Checks the arguments and the file, and works out the length.
    static func make(file: String, duration durationText: String?, loops loopsText: String?) async throws -> PlayPlan {
        var duration: Double?
        if let durationText {
            guard let d = Double(durationText.trimmingCharacters(in: .whitespaces)), d.isFinite, d > 0,
                d <= maximumSeconds
            else {
                throw invalid("--duration needs a number of seconds above 0 and at most 86400, got \"\(durationText)\"")
            }
            duration = d
        }
        var loops = 1
        if let loopsText {
            guard let n = Int(loopsText.trimmingCharacters(in: .whitespaces)), (1...maximumLoops).contains(n) else {
                throw invalid("--loops needs a whole number from 1 to \(maximumLoops), got \"\(loopsText)\"")
            }
            loops = n
        }
        let asset = try commandLineAsset(file)
        let url = asset.url
        let (format, fileFrames, loopPoints) = try await asset.load(.format, .frameCount, .loopPoints)
        // The file's own rate, so the output is the file's samples; a rate OpenAL cannot mix at falls back to 48 kHz.
        let rate = (8_000...192_000).contains(format.sampleRate) ? format.sampleRate : 48_000
        func atRate(_ sourceFrames: Int64) -> Int64 {
            MediaTime(frames: sourceFrames, sampleRate: format.sampleRate).frames(atSampleRate: rate)
        }
        let limit = atRate(Int64(maximumSeconds) * Int64(format.sampleRate))
        let durationFrames = duration.map { MediaTime(seconds: $0).frames(atSampleRate: rate) }
        let looping: Looping
        var frames: Int64
        if let loopPoints {
            if let durationFrames {
                looping = .forever
                frames = durationFrames
            } else {
                looping = .times(loops)
                // intro + loops × region + tail, in source frames (bounded: at most 86400 s).
                let (extra, overflow) = loopPoints.length.multipliedReportingOverflow(by: Int64(loops - 1))
                guard !overflow, extra <= limit else {
                    throw BackbeatError(
                        .invalidArgument, operation: "play", url: url,
                        reason: "--loops \(loops) makes more than \(Int(maximumSeconds)) seconds")
                }
                frames = atRate(fileFrames + extra)
            }
        } else {
            looping = .once
            frames = atRate(fileFrames)
            if let durationFrames { frames = min(frames, durationFrames) }
        }
        guard frames > 0 else {
            throw BackbeatError(.emptyFile, operation: "play", url: url, reason: "nothing to play")
        }
        return PlayPlan(file: file, url: url, sampleRate: rate, looping: looping, frames: min(frames, max(limit, 1)))
    }

    private func player(on engine: AudioEngine) throws -> (QueuePlayer, PlayerItem) {
        let item = PlayerItem(asset: try commandLineAsset(file, looping: looping))
        return (try QueuePlayer(engine: engine, items: [item]), item)
    }

    /// Renders offline into `output` (a stereo float WAV), through a temporary file renamed at the end.
    func render(to output: URL) async throws {
        let engine = try AudioEngine(output: .offline(sampleRate: sampleRate, channels: 2))
        defer { engine.shutdown() }
        let (player, item) = try player(on: engine)
        let writer = try AssetWriter(outputURL: output, fileType: .wav, overwrite: true)
        let format = AudioFormat(sampleRate: sampleRate, channelCount: 2)
        let input = AssetWriterInput(outputSettings: format)
        do {
            try writer.add(input)
            try writer.startWriting()
            player.play()
            // The output's fixed latency (the limiter's lookahead) comes first: the file starts after it.
            let latency = engine.outputLatency.frames(atSampleRate: sampleRate)
            if latency > 0 { _ = try engine.render(frames: Int(latency)) }
            var remaining = frames
            while remaining > 0 {
                let chunk = Int(min(remaining, 16_384))
                let samples = try engine.render(frames: chunk)
                if let error = item.error { throw error }
                try input.append(try PCMBuffer(format: format, floats: samples))
                remaining -= Int64(chunk)
            }
            input.markAsFinished()
            try await writer.finishWriting()
        } catch {
            writer.cancelWriting()
            throw error
        }
    }

    /// Plays through the default output device until the planned length has been heard.
    func playThroughDevice() async throws {
        let engine = try AudioEngine(output: .device())
        defer { engine.shutdown() }
        let (player, item) = try player(on: engine)
        player.play()
        // Engine time, not wall time: stop once the planned frames have been rendered to the device.
        let end = MediaTime(frames: frames, sampleRate: sampleRate)
        while engine.currentTime < end {
            if let error = item.error { throw error }
            if item.status == .readyToPlay, player.currentItem == nil { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        if let error = item.error { throw error }
    }
}
