import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// The drum pad demo on a real sound server (a private PulseAudio daemon),
/// with no `--output`: what a player on a machine with a sound device gets.
/// The demo runs as a child process (OpenAL picks its backends once per
/// process) and the sink's monitor is recorded.
@Suite struct DrumpadDeviceTests {
    /// What the server showed while the demo played: its streams and clients.
    private final class Seen: @unchecked Sendable {
        // Safe: every access holds `lock`.
        private let lock = Lock()
        private var listing: String?
        func set(_ text: String) {
            lock.lock()
            if listing == nil { listing = text }
            lock.unlock()
        }
        var value: String? {
            lock.lock()
            defer { lock.unlock() }
            return listing
        }
    }

    /// Frames where a drum hit starts in interleaved stereo: a 1-ms block
    /// louder than 0.2 and than twice the loudest of the 10 ms before the
    /// 2 ms leading up to it, at least 100 ms after the previous hit. The
    /// 2 ms let an attack that rises over a few milliseconds (a softer pad
    /// variation, cut across block boundaries anywhere) count as one: it was
    /// missed when its first block held only the start of the rise. The hit
    /// starts at the first frame of those 3 ms over twice that level.
    static func attacks(_ samples: [Float]) -> [Int] {
        let frames = samples.count / 2
        let level = (0..<frames).map { max(abs(samples[2 * $0]), abs(samples[2 * $0 + 1])) }
        let block = 48
        let peaks = stride(from: 0, to: frames, by: block).map { level[$0..<min(frames, $0 + block)].max() ?? 0 }
        var attacks: [Int] = []
        var last = -1_000
        for (index, peak) in peaks.enumerated() where index - last > 100 {
            let before = peaks[max(0, index - 12)..<max(0, index - 2)].max() ?? 0
            guard peak > 0.2, peak > 2 * before else { continue }
            let start = max(0, index - 2) * block
            let first =
                (start..<min(frames, (index + 1) * block)).first { level[$0] > max(0.05, 2 * before) } ?? index * block
            attacks.append(first)
            last = index
        }
        return attacks
    }

    /// A `drumpad` (not started yet) that plays through `server` with no
    /// `--output`, as on a player's machine: it reads `script` on standard
    /// input and writes its standard output to the returned file in `dir`.
    static func drumpadProcess(
        script: String, in dir: URL, on server: PrivateSoundServer,
        assets: URL = Assets.root.appendingPathComponent("Assets")
    ) throws -> (
        process: Process, stdout: URL
    ) {
        let input = dir.appendingPathComponent("input")
        try Data(script.utf8).write(to: input)
        let out = dir.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try DrumpadDemoTests.drumpad())
        process.arguments = ["--assets", assets.path]
        process.currentDirectoryURL = dir
        process.environment = ProcessInfo.processInfo.environment
            .merging(server.environment) { $1 }.merging(["ALSOFT_DRIVERS": "pulse"]) { $1 }
            .filter { $0.key != "ALSOFT_CONF" }
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = FileHandle.nullDevice
        return (process, out)
    }

    @Test(
        "soundServer: drumpad with no --output plays its four pads through the server, says so in one line, and the stream carries the game's name"
    )
    func soundServerDrumpadPlaysThroughTheServer() throws {
        let server = try PrivateSoundServer(sinks: ["Backbeat-Pads"])
        defer { server.stop() }
        try withTemporaryDirectory { dir in
            let script =
                "session playback mix\nbass\nwait 0.25\nsnare\nwait 0.25\nbass\nwait 0.25\nsnare\nwait 0.75\nquit\n"
            let (process, out) = try Self.drumpadProcess(script: script, in: dir, on: server)
            let recording = try server.recordMonitor(of: "Backbeat-Pads")
            try process.run()
            // While it plays, look at its stream and client as a desktop mixer would.
            let seen = Seen()
            while process.isRunning, seen.value == nil {
                if let inputs = try? server.pactl("list", "sink-inputs"),
                    inputs.contains("application.name = \"Backbeat drum pad\""),
                    let clients = try? server.pactl("list", "clients")
                {
                    seen.set(inputs + "\n" + clients)
                }
                usleep(20_000)
            }
            process.waitUntilExit()
            let samples = try recording.stop()
            let stdout = String(decoding: try Data(contentsOf: out), as: UTF8.self)
            #expect(process.terminationStatus == 0)
            #expect(
                stdout.split(separator: "\n").contains("Playing through the sound device \"Backbeat-Pads\"."),
                "\(stdout)")
            // The stream is named after the game; the game role reaches the client (OpenAL Soft 1.19.1 empties the stream's).
            let listing = try #require(seen.value, "no stream named after the game appeared")
            #expect(listing.contains("media.role = \"game\""))
            // Four pads, each heard where the level jumps over the tail of the one before.
            let onsets = Self.attacks(samples)
            try #require(onsets.count == 4, "attacks at frames \(onsets)")
            // Four separate hits in the script's order and rhythm: each line
            // after a `wait` is scheduled on the script's own engine time, so
            // the gaps the monitor hears are the scripted 250 ms.
            let gaps = zip(onsets.dropFirst(), onsets).map { Double($0 - $1) / 48.0 }
            let tolerance = underThreadSanitizer ? 50.0 : 5.0
            for gap in gaps { #expect(abs(gap - 250) <= tolerance, "gaps (ms): \(gaps)") }
        }
    }
}

extension DrumpadDeviceTests {
    /// How well `template` matches the left channel of interleaved stereo
    /// `samples` starting at each frame: normalized cross-correlation, 1 for
    /// the template itself at any level.
    static func matchScores(of template: [Float], in samples: [Float]) -> [Double] {
        let left = SampleAnalysis.channel(samples, 0, of: 2)
        let length = template.count
        guard left.count > length else { return [] }
        let templateNorm = template.reduce(0) { $0 + Double($1) * Double($1) }.squareRoot()
        var scores = [Double](repeating: 0, count: left.count - length)
        left.withUnsafeBufferPointer { x in
            template.withUnsafeBufferPointer { t in
                var energy = (0..<length).reduce(0) { $0 + Double(x[$1]) * Double(x[$1]) }
                for n in 0..<scores.count {
                    var dot = 0.0
                    for k in 0..<length { dot += Double(t[k]) * Double(x[n + k]) }
                    let norm = max(energy, 0).squareRoot() * templateNorm
                    scores[n] = norm > 1e-6 ? dot / norm : 0
                    energy += Double(x[n + length]) * Double(x[n + length]) - Double(x[n]) * Double(x[n])
                }
            }
        }
        return scores
    }

    /// How well `template` matches the left channel of interleaved stereo
    /// `samples` from `frame` on (normalized cross-correlation).
    static func matchScore(of template: [Float], in samples: [Float], at frame: Int) -> Double {
        guard frame >= 0, 2 * (frame + template.count) <= samples.count else { return 0 }
        var dot = 0.0
        var energy = 0.0
        var norm = 0.0
        for k in template.indices {
            let x = Double(samples[2 * (frame + k)])
            let t = Double(template[k])
            dot += x * t
            energy += x * x
            norm += t * t
        }
        return energy > 1e-12 ? dot / (energy * norm).squareRoot() : 0
    }

    /// The first `frames` of a pad's sound (10 ms by default), mono at 48 kHz: its attack.
    static func attack(of url: URL, frames: Int = 480) throws -> [Float] {
        let reader = try AssetReader(asset: AudioAsset(url: url))
        let output = AssetReaderTrackOutput(outputSettings: AudioFormat(sampleRate: 48_000, channelCount: 1))
        try reader.add(output)
        try reader.startReading()
        var floats: [Float] = []
        while floats.count < frames, let buffer = try output.copyNextSampleBuffer() {
            if case .float32(let s) = buffer.samples { floats += s }
        }
        return Array(floats.prefix(frames))
    }

    /// The demo's assets in `dir`, with the pads as their plain files and no
    /// bank: each pad is then a one-sound event at its file's pitch and level,
    /// so the device recording can be matched against the files themselves.
    /// (The bank's variations, pitch and level are checked sample for sample
    /// by the offline demo tests; here what is measured is the device path's
    /// timing, and a hit drawn at a random pitch correlates too weakly over
    /// music as loud as it to be found reliably.)
    static func plainPadAssets(in dir: URL) throws -> URL {
        let real = Assets.root.appendingPathComponent("Assets")
        let assets = dir.appendingPathComponent("Assets")
        let drums = assets.appendingPathComponent("Drums")
        try FileManager.default.createDirectory(at: drums, withIntermediateDirectories: true)
        for folder in ["Music", "Level"] {
            try FileManager.default.createSymbolicLink(
                at: assets.appendingPathComponent(folder), withDestinationURL: real.appendingPathComponent(folder))
        }
        // Copies: sounds are opened only as regular files.
        for pad in ["snare", "bass", "tambourine", "maraca"] {
            try FileManager.default.copyItem(
                at: real.appendingPathComponent("Drums/\(pad).wav"), to: drums.appendingPathComponent("\(pad).wav"))
        }
        return assets
    }

    /// The first 100 ms of each of `pads`' hits as the demo plays them (left
    /// channel, from its first non-zero frame): the same pad lines a second
    /// apart, rendered offline by the demo, so each hit draws the variation,
    /// pitch and volume the seeded bank gives it, and no hit overlaps another.
    static func padTemplates(_ pads: [String]) throws -> [[Float]] {
        let render = try DrumpadDemoTests.render(pads.flatMap { [$0, "wait 1"] }, music: false)
        try #require(render.started.count == pads.count, "\(render.started)")
        let left = SampleAnalysis.channel(render.samples, 0, of: 2)
        return try pads.indices.map { index in
            let window = Array(left[(index * 48_000)..<min(left.count, (index + 1) * 48_000)])
            let start = try #require(SampleAnalysis.firstAudibleFrame(window, channels: 1, threshold: 1e-6))
            try #require(start + 4_800 <= window.count, "hit \(index) starts at \(start) in its second")
            return Array(window[start..<(start + 4_800)])
        }
    }

    @Test(
        "soundServer: drumpad's scripted pads over its music: the music is heard under them and the pads keep the script's 250 ms to ±5 ms",
        .enabled(
            if: !underThreadSanitizer, "millisecond timing is checked by the plain pass, not under the thread sanitizer"
        )
    )
    func soundServerDrumpadPadsOverMusic() throws {
        // A real-time scene on a shared two-core machine: one stall of the
        // sound server or of its recorder moves every pad after it (seen once
        // in CI: the last two pads more than 10 ms off, the first two exact).
        // So a second run is allowed, and the first run's findings are kept;
        // a drum pad that does not keep the script's time fails both.
        var findings: [String] = []
        for _ in 0..<2 {
            let problems = try padsOverMusicProblems()
            if problems.isEmpty { return }
            findings.append(problems.joined(separator: "; "))
        }
        Issue.record("both runs: \(findings.joined(separator: " | "))")
    }

    /// One run of ``soundServerDrumpadPadsOverMusic()``: what it found wrong, or nothing.
    private func padsOverMusicProblems() throws -> [String] {
        var problems: [String] = []
        let server = try PrivateSoundServer(sinks: ["Backbeat-Pads"])
        defer { server.stop() }
        try withTemporaryDirectory { dir in
            let script =
                "session playback mix\nplay\nwait 1\nbass\nwait 0.25\nsnare\nwait 0.25\nbass\nwait 0.25\nsnare\nwait 0.75\nquit\n"
            let (process, _) = try Self.drumpadProcess(
                script: script, in: dir, on: server, assets: Self.plainPadAssets(in: dir))
            let recording = try server.recordMonitor(of: "Backbeat-Pads")
            try process.run()
            process.waitUntilExit()
            let samples = try recording.stop()
            if process.terminationStatus != 0 { problems.append("drumpad exited \(process.terminationStatus)") }
            let drums = Assets.root.appendingPathComponent("Assets/Drums")
            let bass = try Self.attack(of: drums.appendingPathComponent("bass.wav"))
            let snare = try Self.attack(of: drums.appendingPathComponent("snare.wav"))
            // The music has drums of its own, so the four pads are first found
            // where the script's four hits fit best together (their 10-ms
            // attacks), then each on its own within 10 ms of there by its
            // first 100 ms, which no drum of the music shares: the gaps are
            // measured, not assumed.
            let scores = [bass, snare, bass, snare].map { Self.matchScores(of: $0, in: samples) }
            let pattern = [0, 12_000, 24_000, 36_000]
            let last = scores[0].count - pattern[3] - 480
            try #require(last > 480, "recording too short: \(samples.count / 2) frames")
            let anchor = stride(from: 480, to: last, by: 1).max { a, b in
                zip(scores, pattern).reduce(0) { $0 + $1.0[a + $1.1] }
                    < zip(scores, pattern).reduce(0) { $0 + $1.0[b + $1.1] }
            }!
            let long = try [
                Self.attack(of: drums.appendingPathComponent("bass.wav"), frames: 4_800),
                Self.attack(of: drums.appendingPathComponent("snare.wav"), frames: 4_800),
            ]
            let hits = pattern.enumerated().map { index, offset in
                ((anchor + offset - 480)...(anchor + offset + 480)).max {
                    Self.matchScore(of: long[index % 2], in: samples, at: $0)
                        < Self.matchScore(of: long[index % 2], in: samples, at: $1)
                }!
            }
            let strengths = hits.enumerated().map {
                Self.matchScore(of: long[$0.offset % 2], in: samples, at: $0.element)
            }
            // Each pad is there, over music as loud as it (0.47 has been seen for a snare on a loud beat).
            if !(strengths.allSatisfy { $0 > 0.3 } && strengths.reduce(0, +) / 4 > 0.5) {
                problems.append("match of each pad: \(strengths) at \(hits)")
            }
            try #require(
                hits[0] >= 12_000 && 2 * (hits[3] + 24_000) <= samples.count,
                "pads at \(hits) in \(samples.count / 2) frames: the music before them or after them is missing")
            let gaps = zip(hits.dropFirst(), hits).map { Double($0 - $1) / 48.0 }
            if !gaps.allSatisfy({ abs($0 - 250) <= 5 }) { problems.append("gaps (ms): \(gaps)") }
            // The music plays under them: heard before the first pad (the
            // recording may start late on a busy machine) and after the last.
            let before = samples[(2 * max(0, hits[0] - 48_000))..<(2 * (hits[0] - 2_400))]
            if !(SampleAnalysis.rms(before) > 0.02) {
                problems.append("music before the pads: \(SampleAnalysis.rms(before))")
            }
            let under = samples[(2 * (hits[3] + 14_400))..<(2 * (hits[3] + 24_000))]
            if !(SampleAnalysis.rms(under) > 0.02) {
                problems.append("music after the pads: \(SampleAnalysis.rms(under))")
            }
        }
        return problems
    }
}

extension DrumpadDeviceTests {
    @Test(
        "soundServer: drumpad survives its sound server dying mid-script: it reports the lost output, plays on silently and exits 0"
    )
    func soundServerDrumpadSurvivesTheServerDying() throws {
        let server = try PrivateSoundServer(sinks: ["Backbeat-Pads"])
        defer { server.stop() }
        try withTemporaryDirectory { dir in
            var script = "session playback mix\n"
            for _ in 0..<12 { script += "bass\nwait 0.25\nsnare\nwait 0.25\n" }
            script += "quit\n"
            let (process, out) = try Self.drumpadProcess(script: script, in: dir, on: server)
            try process.run()
            // Kill the server once the demo's stream is playing on it.
            var playing = false
            for _ in 0..<500 where process.isRunning && !playing {
                playing = ((try? server.pactl("list", "short", "sink-inputs")) ?? "").contains("float32le")
                if !playing { usleep(10_000) }
            }
            #expect(playing)
            // Into the script (it is 6 s long), so the engine is past its start-up.
            usleep(1_000_000)
            server.kill(signal: SIGKILL)
            // The script is 6 s of engine time; give a hung demo far longer, then stop it and fail.
            for _ in 0..<600 where process.isRunning { usleep(100_000) }
            let hung = process.isRunning
            if hung { process.terminate() }
            process.waitUntilExit()
            #expect(!hung, "drumpad did not finish after its server died")
            let stdout = String(decoding: try Data(contentsOf: out), as: UTF8.self)
            #expect(process.terminationStatus == 0)
            #expect(stdout.contains("output: Backbeat-Pads lost"), "\(stdout)")
            #expect(stdout.contains("Sound went to the sound device \"Backbeat-Pads\""), "\(stdout)")
        }
    }
}

extension DrumpadDeviceTests {
    /// Runs drumpad where no sound server answers (and, on this machine, no
    /// card): the library settings of this process are not passed on.
    private func runWithoutDevice(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try withTemporaryDirectory { dir in
            let input = dir.appendingPathComponent("input")
            try Data("bass\nquit\n".utf8).write(to: input)
            let out = dir.appendingPathComponent("stdout")
            let err = dir.appendingPathComponent("stderr")
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            _ = FileManager.default.createFile(atPath: err.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try DrumpadDemoTests.drumpad())
            process.arguments = ["--assets", Assets.root.appendingPathComponent("Assets").path] + arguments
            process.currentDirectoryURL = dir
            process.environment = ProcessInfo.processInfo.environment
                .filter { !$0.key.hasPrefix("ALSOFT_") && !$0.key.hasPrefix("PULSE_") }
                .merging(["PULSE_SERVER": "unix:/nonexistent/native"]) { $1 }
            process.standardInput = try FileHandle(forReadingFrom: input)
            process.standardOutput = try FileHandle(forWritingTo: out)
            process.standardError = try FileHandle(forWritingTo: err)
            try process.run()
            process.waitUntilExit()
            return (
                process.terminationStatus,
                String(decoding: try Data(contentsOf: out), as: UTF8.self),
                String(decoding: try Data(contentsOf: err), as: UTF8.self)
            )
        }
    }

    @Test(
        "Without a sound device drumpad prints one clear line and no OpenAL or ALSA noise; --verbose routes ALSA's through its log"
    )
    func quietWithoutADevice() throws {
        let quiet = try runWithoutDevice([])
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
        let lines = quiet.stdout.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("No sound device") }.count == 1, "\(quiet.stdout)")
        #expect(!quiet.stdout.contains("ALSA lib") && !quiet.stdout.contains("AL lib"))
        let verbose = try runWithoutDevice(["--verbose"])
        #expect(verbose.status == 0)
        // ALSA's messages arrive through Backbeat's handler (the demo prefixes them), none printed by ALSA itself.
        for line in verbose.stderr.split(separator: "\n") where line.contains("ALSA lib") {
            #expect(line.hasPrefix("drumpad: ALSA lib"), "\(line)")
        }
        // With no card, ALSA does complain (about card 0): through the handler.
        #expect(verbose.stderr.contains("drumpad: ALSA lib"), "\(verbose.stderr)")
    }
}
