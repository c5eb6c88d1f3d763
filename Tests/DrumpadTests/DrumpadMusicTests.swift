import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import DrumpadCore

/// The drum pad demo's music on the engine's application music player:
/// scripts rendered to WAV, checked on the samples.
@Suite struct DrumpadMusicTests {
    typealias Demo = DrumpadDemoTests

    static func scriptLines() throws -> [String] {
        String(decoding: try Data(contentsOf: Demo.script), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Where the script says music plays: [start, end) frames, from its own commands
    /// (`play`/`random` start it; `env unplug`, `pause`, `stop` and the end stop it).
    static func musicSpans(_ lines: [String], sampleRate: Int) throws -> (playing: [Range<Int>], silent: [Range<Int>]) {
        var time = MediaTime.zero
        var playing: [Range<Int>] = []
        var silent: [Range<Int>] = []
        var on = false
        var since = 0
        func frame() -> Int { Int(time.frames(atSampleRate: sampleRate)) }
        func turn(_ now: Bool) {
            guard now != on else { return }
            if on { playing.append(since..<frame()) } else { silent.append(since..<frame()) }
            on = now
            since = frame()
        }
        for line in lines {
            switch try DrumpadCommand.parse(line) {
            case .play?, .random?: turn(true)
            case .pause?, .stop?, .environment(.unplug)?: turn(false)
            case let .wait(duration)?: time += duration
            case .quit?: break
            default: continue
            }
            if case .quit? = try DrumpadCommand.parse(line) { break }
        }
        if on { playing.append(since..<frame()) } else { silent.append(since..<frame()) }
        return (playing, silent)
    }

    @Test func demoScriptMusicIsPresentWhenTheScriptSaysSoAndAbsentAfterTheUnplug() throws {
        let lines = try Self.scriptLines()
        // The music alone: the same script with every pad hit taken out.
        let musicOnly = try lines.map { line -> String in
            if case .pad? = try DrumpadCommand.parse(line) { return "" }
            return line
        }
        let render = try Demo.render(musicOnly)
        let rate = render.sampleRate
        let spans = try Self.musicSpans(lines, sampleRate: rate)
        try #require(spans.playing.count >= 2 && spans.silent.count >= 2, "the script plays, unplugs and plays again")
        // A change is heard one update and the output latency after it is made; a pause ramps down within one more update.
        let settle = 2 * render.updateInterval + render.latencyFrames
        let block = rate / 20
        for span in spans.playing {
            for start in stride(from: span.lowerBound + settle, to: span.upperBound - block, by: block) {
                let level = SampleAnalysis.rms(render.samples[(start * 2)..<((start + block) * 2)])
                #expect(level > 0.01, "music should play at \(Double(start) / Double(rate)) s (rms \(level))")
            }
        }
        // Silent spans: before the first play (a gap, not a rule, so skipped) and after the unplug.
        let unplugged = try #require(spans.silent.dropFirst().first)
        #expect(unplugged.count > rate, "the script leaves the music unplugged for more than a second")
        let after = render.samples[((unplugged.lowerBound + settle) * 2)..<(unplugged.upperBound * 2)]
        #expect(Demo.peak(after) == 0, "the music is paused after the unplug")

        // With the pads the unplugged stretch is not silent: the pads go on.
        let full = try Demo.render(lines)
        try #require(full.frames == render.frames)
        #expect(Demo.peak(full.samples[((unplugged.lowerBound + settle) * 2)..<(unplugged.upperBound * 2)]) > 0.1)
        // And the music renders the same with and without pads before the first hit (deterministic, inline decoding).
        let firstHit = try #require(try Demo.hits(lines, sampleRate: rate).first).frame
        #expect(full.samples[..<(firstHit * 2)] == render.samples[..<(firstHit * 2)])

        // The level music: the stinger on a beat and combat on a bar line of explore, both
        // after the line that asked; heard from there (the application's music is paused).
        let level = DrumpadLevelMusicTests.self
        let explore = try level.reportedFrame(render, "section: explore starts")
        let stinger = try level.reportedFrame(render, "stinger: on the next beat")
        let combat = try level.reportedFrame(render, "section: combat on the next bar")
        let asked = try Self.scriptFrame(of: "section combat", in: lines, sampleRate: rate)
        #expect((stinger - explore) % level.beat == 0 && stinger > explore, "stinger at \(stinger)")
        #expect((combat - explore) % level.bar == 0 && combat >= asked && combat - asked <= level.bar)
        #expect(render.lines.contains("intensity: 1, drums layer at 1"), "\(render.lines)")
        #expect(SampleAnalysis.rms(render.samples[(combat * 2)..<((combat + rate / 2) * 2)]) > 0.01)
    }

    /// The engine frame at which the script reaches `line`, by its waits.
    static func scriptFrame(of line: String, in lines: [String], sampleRate: Int) throws -> Int {
        var time = MediaTime.zero
        for l in lines {
            if l == line { return Int(time.frames(atSampleRate: sampleRate)) }
            if case let .wait(duration)? = try DrumpadCommand.parse(l) { time += duration }
        }
        throw BackbeatError(.invalidArgument, operation: "scriptFrame", reason: "no line \"\(line)\"")
    }

    @Test func musicRendersTheSameOnEveryRun() throws {
        let lines = ["play", "wait 0.7", "next", "wait 0.4", "seek 0:10", "wait 0.4", "random Rock", "wait 0.5"]
        let first = try Demo.render(lines)
        let second = try Demo.render(lines)
        #expect(first.samples == second.samples)
        #expect(Demo.peak(first.samples[...]) > 0.1)
    }

    @Test func quitFadesMusicAndPadsOnceToSilence() throws {
        // Music with a tambourine ringing at quit, against the same left to play on.
        let faded = try Demo.render(["play", "wait 1", "tambourine", "wait 0.05", "quit"])
        let reference = try Demo.render(["play", "wait 1", "tambourine", "wait 1.5"])
        let rate = faded.sampleRate
        let quit = rate + rate / 20
        let fade = rate
        // One fade: the demo's; shutdown adds no second fade (no extra second of silence).
        #expect(faded.frames == quit + fade + faded.updateInterval + faded.latencyFrames)
        // Each 50 ms of the fade is quieter, relative to the unfaded render, than the one before.
        var lastRatio: Float = 1.01
        for block in stride(from: quit, to: quit + fade - rate / 20, by: rate / 20) {
            let range = (block * 2)..<((block + rate / 20) * 2)
            let ratio = SampleAnalysis.rms(faded.samples[range]) / SampleAnalysis.rms(reference.samples[range])
            #expect(ratio < lastRatio, "fade block at \(block) frames: \(ratio) after \(lastRatio)")
            lastRatio = ratio
        }
        #expect(lastRatio < 0.2)
        #expect(
            Demo.peak(faded.samples[((quit + fade + faded.latencyFrames) * 2)...]) < 1e-4,
            "silent once the fade is over")
        // No click: nothing in the fade jumps more from one sample to the next than the unfaded music does.
        let span = (quit * 2)..<(faded.samples.count)
        let jump = SampleAnalysis.maxJump(Array(faded.samples[span]), channels: 2)
        #expect(jump <= SampleAnalysis.maxJump(Array(reference.samples[span]), channels: 2) + 1e-3)
    }

    @Test func levelMeterFollowsTheMusic() throws {
        var levels: [String: Float?] = [:]
        var screens: [String: [String]] = [:]
        var nowPlaying: DrumpadStatus.NowPlaying?
        let render = try Demo.render { demo in
            func look(_ name: String) {
                demo.refreshStatus()
                levels[name] = demo.status.level
                screens[name] = DrumpadScreen.render(demo.status, now: demo.engine.currentTime, typing: "", width: 100)
            }
            for line in ["play", "wait 1"] { demo.perform(line: line) }
            look("playing")
            nowPlaying = demo.status.nowPlaying
            for line in ["env unplug", "wait 0.5"] { demo.perform(line: line) }
            look("paused")
            for line in ["bass", "wait 0.25"] { demo.perform(line: line) }
            look("pads only")
        }
        #expect(
            nowPlaying
                == DrumpadStatus.NowPlaying(
                    title: "Backroad Anthem", album: "Backbeat Sampler",
                    artist: "The Backbeats", artwork: "192×192 artwork"))
        // Playing: the meter reads the music's peak since the last look, which the rendered file holds.
        let playing = try #require(levels["playing"] ?? nil)
        let rendered = Demo.peak(render.samples[..<(render.sampleRate * 2)])
        #expect(playing > 0.05 && playing <= rendered * 1.01, "meter \(playing), rendered peak \(rendered)")
        // Paused, the meter falls to nothing, pads or no pads: it meters the music.
        #expect(levels["paused"] == 0)
        #expect(levels["pads only"] == 0)
        let meterLine = try #require(screens["playing"]?.first { $0.hasPrefix("  level: ") })
        #expect(meterLine.contains("#") && meterLine.hasSuffix(" dB") && !meterLine.contains("-inf"))
        #expect(screens["paused"]?.contains { $0.hasPrefix("  level: ") && $0.hasSuffix("-inf dB") } == true)
        #expect(
            screens["playing"]?.contains(
                "  now playing: Backroad Anthem — Backbeat Sampler — The Backbeats (192×192 artwork)") == true)
        #expect(screens["paused"]?.contains("  music: paused") == true)
    }

    @Test func quantizeUsesTheNowPlayingSongsTempo() throws {
        // "Backroad Anthem" is tagged 96 BPM: an eighth is 0.3125 s, counted from where the song is heard.
        let withHit = try Demo.render(["play", "quantize 1/8", "wait 0.4", "snare", "wait 0.5"])
        let without = try Demo.render(["play", "quantize 1/8", "wait 0.4", "wait 0.5"])
        try #require(withHit.frames == without.frames)
        #expect(withHit.lines.contains { $0.contains("(96 BPM)") })
        let difference = zip(withHit.samples, without.samples).map { $0 - $1 }
        let snare = try Assets.readWAV(Assets.drums.appendingPathComponent("snare.wav"))
        let attack = try #require(SampleAnalysis.firstAudibleFrame(snare.samples, channels: 1, threshold: 1e-3 / 0.7))
        let found = try #require(SampleAnalysis.firstAudibleFrame(difference, channels: 2, threshold: 1e-3))
        // The song started at engine time zero and is heard from the output latency on; 0.4 s snaps to the
        // second eighth, 0.625 s into the song.
        let point = withHit.latencyFrames + 2 * 15_000
        #expect(
            abs(found - (point + attack)) <= 1,
            "heard at \(found), the song's eighth is at \(point) (+\(attack) of attack)")
    }
}

/// `drumpad --mpris`: the demo's music player on a private desktop bus, driven by playerctl.
@Suite(.serialized) struct DrumpadMPRISTests {
    static let playerctlAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/playerctl")

    /// Starts the binary with `--mpris` on `bus` (nil: no bus at all) and stdin on a pipe.
    static func start(bus: PrivateBus?, in dir: URL) throws -> (Process, Pipe, URL) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try DrumpadDemoTests.drumpad())
        process.arguments = [
            "--assets", Assets.root.appendingPathComponent("Assets").path,
            "--output", dir.appendingPathComponent("mpris.wav").path, "--mpris",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus?.address
        process.environment = environment
        let input = Pipe()
        process.standardInput = input
        let out = dir.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, input, out)
    }

    @Test(.enabled(if: playerctlAvailable)) func playerctlDrivesTheDemosMusic() async throws {
        try await PrivateBus.with { bus in
            try await withTemporaryDirectoryAsync { dir in
                let (process, input, out) = try Self.start(bus: bus, in: dir)
                defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
                input.fileHandleForWriting.write(Data("play\n".utf8))
                // The player appears on the bus once the demo has started: look until it does (bounded).
                var title = ""
                for _ in 0..<500 where title != "Backroad Anthem" {
                    title = try playerctl(bus, "--player=backbeat.drumpad", "metadata", "title")
                    if title != "Backroad Anthem" { try await Task.sleep(nanoseconds: 20_000_000) }
                }
                #expect(title == "Backroad Anthem")
                #expect(try playerctl(bus, "--player=backbeat.drumpad", "status") == "Playing")
                try playerctl(bus, "--player=backbeat.drumpad", "next")
                // The player takes the command on its own queue: wait until the bus shows the next song.
                for _ in 0..<500 where title != "Blue Hour Walk" {
                    title = try playerctl(bus, "--player=backbeat.drumpad", "metadata", "title")
                    if title != "Blue Hour Walk" { try await Task.sleep(nanoseconds: 20_000_000) }
                }
                // The desktop's skip reached the demo's player: its own `now` says so.
                input.fileHandleForWriting.write(Data("now\n".utf8))
                try input.fileHandleForWriting.close()
                process.waitUntilExit()
                #expect(process.terminationStatus == 0)
                let printed = String(decoding: try Data(contentsOf: out), as: UTF8.self)
                #expect(
                    printed.contains(
                        "mpris: the music player is on the desktop bus as org.mpris.MediaPlayer2.backbeat.drumpad"))
                #expect(printed.contains("now: \"Blue Hour Walk\""))
                #expect(!printed.contains("other audio asked to stop"), "nothing else played: nobody was asked")
                // Gone from the bus once the demo has ended.
                #expect(!(try playerctl(bus, "-l")).contains("backbeat.drumpad"))
            }
        }
    }

    /// The desktop is the session's other audio: the user's player (mpv) is
    /// paused once the demo's session becomes playback without mixing, and
    /// plays again when the demo ends.
    @Test(.enabled(if: MPVPlayer.isAvailable)) func theUsersPlayerIsPausedAndGivenBackAtTheEnd() async throws {
        try await PrivateBus.with { bus in
            try await withTemporaryDirectoryAsync { dir in
                let song = dir.appendingPathComponent("users-song.ogg")
                try await writeTaggedSong(to: song, title: "The User's Song", artist: "Someone", album: "Elsewhere")
                let mpv = try MPVPlayer(bus: bus, files: [song])
                defer { mpv.stop() }
                func mpvStatus() throws -> String { try playerctl(bus, "--player=mpv", "status") }
                var status = ""
                for _ in 0..<500 where status != "Playing" {
                    status = try mpvStatus()
                    if status != "Playing" { try await Task.sleep(nanoseconds: 20_000_000) }
                }
                try #require(status == "Playing")

                let (process, input, out) = try Self.start(bus: bus, in: dir)
                defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
                input.fileHandleForWriting.write(Data("session playback\nbass\n".utf8))
                try await eventually("the demo's session pauses mpv") { (try? mpvStatus()) == "Paused" }
                try input.fileHandleForWriting.close()
                process.waitUntilExit()
                #expect(process.terminationStatus == 0)
                let printed = String(decoding: try Data(contentsOf: out), as: UTF8.self)
                try await eventually("mpv plays again once the demo has ended") { (try? mpvStatus()) == "Playing" }
                #expect(printed.contains("other audio asked to stop"))
            }
        }
    }

    @Test func withoutADesktopBusTheDemoSaysSoAndPlaysOn() throws {
        try withTemporaryDirectory { dir in
            let (process, input, out) = try Self.start(bus: nil, in: dir)
            input.fileHandleForWriting.write(Data("play\nwait 0.5\nbass\nwait 0.25\n".utf8))
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let printed = String(decoding: try Data(contentsOf: out), as: UTF8.self)
            #expect(printed.contains("mpris: no desktop bus"))
            let read = try Media.read(dir.appendingPathComponent("mpris.wav"))
            #expect(DrumpadDemoTests.peak(read.floats[..<(24_000 * 2)]) > 0.05, "the music plays without a bus")
        }
    }
}
