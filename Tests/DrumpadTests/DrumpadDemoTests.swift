import Backbeat
import BackbeatLibrary
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import DrumpadCore

/// The drum pad demo end to end: scripts rendered to WAV by the real engine,
/// checked on the samples; bad input fed to the built binary.
@Suite struct DrumpadDemoTests {
    static let script = Assets.root.appendingPathComponent("Demo/demo.script")
    static let library: MediaLibrary? = {
        guard let library = try? MediaLibrary(roots: [Assets.music], index: .inMemory), (try? library.scan()) != nil
        else { return nil }
        return library
    }()

    /// A rendered script: interleaved stereo samples, the engine's timing, and what the demo printed.
    struct Render {
        var samples: [Float]
        var sampleRate: Int
        var updateInterval: Int
        var latencyFrames: Int
        var lines: [String]
        /// The sounds that started, in order (a pad plays one of its variations).
        var started: [String]
        var frames: Int { samples.count / 2 }
    }

    /// Runs `lines` through a demo on a `.file` engine, with the engine's
    /// application music player (or none), and reads the WAV back.
    static func render(_ lines: [String], music: Bool = true) throws -> Render {
        try render(music: music) { $0.run(lines) }
    }

    /// Lets `drive` run a demo on a `.file` engine, finishes it, and reads the WAV back.
    static func render(music: Bool = true, _ drive: (Drumpad) throws -> Void) throws -> Render {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("demo.wav")
            let engine = try AudioEngine(output: .file(url: url))
            let printed = LockedValueBox<[String]>([])
            let started = LockedValueBox<[String]>([])
            let token = engine.observe { event in
                if case .voiceStarted(_, let sound, _, _) = event { started.withLockedValue { $0.append(sound) } }
            }
            defer { token.cancel() }
            let player: ApplicationMusic? = music ? try ApplicationMusic(engine: engine, library: library) : nil
            let demo = try Drumpad(
                engine: engine, drums: Assets.drums, library: library, music: player,
                say: { line in printed.withLockedValue { $0.append(line) } })
            try drive(demo)
            demo.finish()
            #expect(!engine.isRunning)
            let read = try Media.read(url)
            #expect(read.format.channelCount == 2 && read.format.sampleRate == engine.sampleRate)
            return Render(
                samples: read.floats, sampleRate: engine.sampleRate, updateInterval: engine.updateInterval,
                latencyFrames: Int(engine.latencyFrames), lines: printed.withLockedValue { $0 },
                started: started.withLockedValue { $0 })
        }
    }

    /// A pad hit of a script: its line, the engine time it was typed at, and whether it should sound.
    struct Hit {
        var line: Int
        var frame: Int
        var audible: Bool
    }

    /// The script's pad hits, timed by its waits; a hit is inaudible while the
    /// silent switch is on in an ambient or soloAmbient session.
    static func hits(_ lines: [String], sampleRate: Int) throws -> [Hit] {
        var hits: [Hit] = []
        var time = MediaTime.zero
        var silent = false
        var ambient = false
        for (index, line) in lines.enumerated() {
            switch try DrumpadCommand.parse(line) {
            case .pad?:
                hits.append(
                    Hit(line: index, frame: Int(time.frames(atSampleRate: sampleRate)), audible: !(silent && ambient)))
            case let .wait(duration)?: time += duration
            case let .environment(.silent(on))?: silent = on
            case let .session(category, _)?: ambient = category != .playback
            default: break
            }
        }
        return hits
    }

    static func peak(_ samples: ArraySlice<Float>) -> Float { samples.reduce(0) { max($0, abs($1)) } }

    @Test func demoScriptPadHitsAreHeardAtTheirScriptedTimes() throws {
        let lines = String(decoding: try Data(contentsOf: Self.script), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let hits = try Self.hits(lines, sampleRate: 48_000)
        #expect(hits.count >= 16)
        #expect(hits.contains { !$0.audible }, "the script mutes a pad with the silent switch in an ambient session")
        // Render with the pads before hit i, then with hit i too: the difference is hit i alone.
        func keeping(_ count: Int) -> [String] {
            var kept = lines
            for hit in hits.dropFirst(count) { kept[hit.line] = "" }
            return kept
        }
        var previous = try Self.render(keeping(0))
        for (index, hit) in hits.enumerated() {
            let current = try Self.render(keeping(index + 1))
            try #require(current.frames == previous.frames)
            let difference = zip(current.samples, previous.samples).map { $0 - $1 }
            let before = Self.peak(difference[..<(hit.frame * 2)])
            #expect(before == 0, "line \(hit.line + 1): nothing may change before the hit")
            let onset = SampleAnalysis.firstAudibleFrame(difference, channels: 2, threshold: 1e-3)
            if hit.audible {
                let window = hit.frame...(hit.frame + current.updateInterval + current.latencyFrames)
                let found = try #require(onset, "line \(hit.line + 1): \(lines[hit.line]) is not heard")
                #expect(
                    window.contains(found), "line \(hit.line + 1): heard at frame \(found), scripted at \(hit.frame)")
                #expect(Self.peak(difference[(found * 2)..<min(difference.count, (found + 2_400) * 2)]) > 0.05)
            } else {
                #expect(onset == nil, "line \(hit.line + 1): muted by the silent switch in ambient, yet heard")
            }
            previous = current
        }
    }

    /// A pad bank that is not JSON, or lacks a pad, stops the demo with one line naming the problem.
    @Test(arguments: [
        ("{\"version\": 1, \"events\": [", "cannot load the pads: "),
        (#"{"version": 1, "events": [{"name": "snare", "sounds": ["snare.wav"]}]}"#, #"has no "bass" event"#),
    ])
    func badPadBankIsOneLineError(_ json: String, _ expected: String) throws {
        try withTemporaryDirectory { dir in
            for name in try FileManager.default.contentsOfDirectory(atPath: Assets.drums.path)
            where name.hasSuffix(".wav") {
                try FileManager.default.copyItem(
                    at: Assets.drums.appendingPathComponent(name), to: dir.appendingPathComponent(name))
            }
            try Data(json.utf8).write(to: dir.appendingPathComponent("pads.json"))
            let engine = try AudioEngine(output: .file(url: dir.appendingPathComponent("out.wav")))
            defer { engine.shutdown() }
            do {
                _ = try Drumpad(engine: engine, drums: dir, library: nil, music: nil, say: { _ in })
                Issue.record("a bad pad bank was accepted")
            } catch let error as DrumpadError {
                #expect(error.description.contains(expected), "\(error)")
                #expect(!error.description.contains("\n"), "\(error)")
            }
        }
    }

    @Test func padsPlayVariationsNeverTheSameTwiceInARowAndRepeatExactly() throws {
        let script = (0..<9).flatMap { _ in ["snare", "wait 0.5"] }
        let render = try Self.render(script, music: false)
        #expect(render.started.count == 9 && render.started.allSatisfy { $0.hasPrefix("snare") })
        #expect(Set(render.started).count == 3, "all three variations play: \(render.started)")
        for (a, b) in zip(render.started, render.started.dropFirst()) { #expect(a != b, "\(render.started)") }
        // Each hit is heard, at its time, whatever the variation.
        let onsets = SampleAnalysis.onsetFrames(render.samples, channels: 2, minimumGap: 4_800)
        #expect(onsets.count == 9, "\(onsets)")
        // Seeded: the same script renders the same samples.
        #expect(try Self.render(script, music: false).samples == render.samples)
    }

    @Test func velocityIsGain() throws {
        let loud = try Self.render(["bass 127", "wait 0.5"])
        let soft = try Self.render(["bass 32", "wait 0.5"])
        let window = 0..<(24_000 * 2)
        let ratio = Self.peak(soft.samples[window]) / Self.peak(loud.samples[window])
        #expect(abs(ratio - 32.0 / 127.0) < 0.01)
    }

    /// The RMS of each channel of a render over the first `seconds`.
    static func levels(_ render: Render, seconds: Double = 0.5) -> (left: Float, right: Float) {
        let window = Array(render.samples[0..<(Int(seconds * Double(render.sampleRate)) * 2)])
        return (
            SampleAnalysis.rms(SampleAnalysis.channel(window, 0, of: 2)),
            SampleAnalysis.rms(SampleAnalysis.channel(window, 1, of: 2))
        )
    }

    static func decibels(_ ratio: Float) -> Double { 20 * log10(Double(ratio)) }

    @Test func placedPadIsHeardFromItsSide() throws {
        let centred = Self.levels(try Self.render(["snare", "wait 0.5"], music: false))
        let right = Self.levels(try Self.render(["place snare 3 0 0", "snare", "wait 0.5"], music: false))
        let left = Self.levels(try Self.render(["place 1 -3 0 0", "snare", "wait 0.5"], music: false))
        #expect(centred.left > 0.01)
        #expect(abs(Self.decibels(centred.left / centred.right)) < 0.5, "a 2D snare is centred")
        #expect(Self.decibels(right.right / right.left) > 20, "3 m to the right: the right ear dominates")
        #expect(Self.decibels(left.left / left.right) > 20, "3 m to the left: the left ear dominates")
        // 3 m away against 1 m away: 1/3 of the gain (-9.5 dB), the engine's default inverse distance.
        let near = Self.levels(try Self.render(["place snare 1 0 0", "snare", "wait 0.5"], music: false))
        #expect(abs(Self.decibels(right.right / near.right) - 20 * log10(1.0 / 3)) < 0.5)
    }

    @Test func turningRightPutsAPadAheadOnTheLeft() throws {
        let ahead = Self.levels(try Self.render(["place snare 0 0 -3", "snare", "wait 0.5"], music: false))
        let turned = Self.levels(try Self.render(["place snare 0 0 -3", "turn 90", "snare", "wait 0.5"], music: false))
        let back = Self.levels(
            try Self.render(["place snare 0 0 -3", "turn 90", "turn 0", "snare", "wait 0.5"], music: false))
        #expect(abs(Self.decibels(ahead.left / ahead.right)) < 0.5, "ahead: centred")
        #expect(Self.decibels(turned.left / turned.right) > 20, "after turn 90, -Z is on the left")
        #expect(abs(Self.decibels(back.left / back.right)) < 0.5, "turn 0 faces -Z again")
    }

    @Test func screenShowsPlacedPadsOnATopDownMap() throws {
        var screen: [String] = []
        _ = try Self.render(music: false) { demo in
            #expect(
                !DrumpadScreen.render(demo.status, now: .zero, typing: "", width: 100).contains { $0.contains("map") })
            demo.run(["place snare 3 0 0", "place bass 0 0 -2", "place maraca -100 0 100", "turn 90"])
            screen = DrumpadScreen.render(demo.status, now: demo.engine.currentTime, typing: "", width: 100)
        }
        let top = try #require(screen.firstIndex { $0.hasPrefix("  map ") }, "\(screen)")
        let rows = Array(screen[(top + 1)...(top + 9)])
        #expect(rows.allSatisfy { $0.count == 4 + 1 + 17 + 1 })
        // The listener in the middle faces +X after turn 90; snare (1) 3 m right; bass (2) 2 m ahead of -Z;
        // maraca (4), 100 m back left, on the bottom-left corner.
        #expect(rows[4] == "    |........>.....1..|")
        #expect(rows[2] == "    |........2........|")
        #expect(rows[8] == "    |4................|")
    }

    @Test func hrtfOnLetsTheFarEarHearAPlacedPad() throws {
        let panned = try Self.render(["place snare 3 0 0", "snare", "wait 0.5"], music: false)
        let hrtf = try Self.render(["hrtf on", "place snare 3 0 0", "snare", "wait 0.5"], music: false)
        let off = try Self.render(["hrtf on", "hrtf off", "place snare 3 0 0", "snare", "wait 0.5"], music: false)
        #expect(hrtf.lines.contains("hrtf: on, placed pads are rendered for headphones"))
        let p = Self.levels(panned)
        let h = Self.levels(hrtf)
        #expect(Self.decibels(p.right / p.left) > 20, "panned: the far ear hears almost nothing")
        #expect(Self.decibels(h.right / h.left) < 15 && h.right > h.left, "HRTF: the far ear hears it through the head")
        #expect(off.samples == panned.samples, "hrtf off: panned again, sample for sample")
    }

    @Test func placeOffIsCentredAgainAndOnlyLaterHitsMove() throws {
        let centred = try Self.render(["snare", "wait 0.5"], music: false)
        let off = try Self.render(["place snare 3 0 0", "place snare off", "snare", "wait 0.5"], music: false)
        #expect(off.samples == centred.samples, "place off: the same 2D snare, sample for sample")
        #expect(off.lines.contains("snare: back in 2D"))
        // A hit already playing stays where it was; the next hit plays at the new place.
        let moved = Self.levels(try Self.render(["snare", "place snare 3 0 0", "wait 0.5"], music: false))
        #expect(abs(Self.decibels(moved.left / moved.right)) < 0.5)
        // Other pads are not moved.
        let bass = Self.levels(try Self.render(["place snare 3 0 0", "bass", "wait 0.5"], music: false))
        #expect(abs(Self.decibels(bass.left / bass.right)) < 0.5)
    }

    @Test func quitFadesToSilence() throws {
        // A long tambourine cut short by quit, against the same hit left to ring.
        let faded = try Self.render(["tambourine", "wait 0.05", "quit", "tambourine"])
        let ringing = try Self.render(["tambourine", "wait 1.5"])
        let rate = faded.sampleRate
        let quit = rate / 20
        let fade = rate
        #expect(
            faded.frames == quit + fade + faded.updateInterval + faded.latencyFrames,
            "quit ends the demo after the fade")
        #expect(faded.lines.contains { $0.hasPrefix("quit:") })
        // Each 50 ms of the fade is quieter, relative to the unfaded hit, than the one before, down to silence.
        var lastRatio: Float = 1.01
        for block in stride(from: quit, to: quit + fade - rate / 20, by: rate / 20) {
            let range = (block * 2)..<((block + rate / 20) * 2)
            let reference = SampleAnalysis.rms(ringing.samples[range])
            guard reference > 1e-3 else { break }
            let ratio = SampleAnalysis.rms(faded.samples[range]) / reference
            #expect(ratio < lastRatio, "fade block at \(block) frames")
            lastRatio = ratio
        }
        #expect(Self.peak(faded.samples[((quit + fade) * 2)...]) < 1e-4, "silent once the fade is over")
    }

    @Test func quitUnderTheMenuStillFadesThePads() throws {
        // The menu's snapshot holds the pads' volume; quit fades them from there,
        // against the same hit left to ring under the menu.
        let faded = try Self.render(["menu on", "wait 0.5", "tambourine", "wait 0.05", "quit", "tambourine"])
        let ringing = try Self.render(["menu on", "wait 0.5", "tambourine", "wait 1.5"])
        let rate = faded.sampleRate
        let quit = rate / 2 + rate / 20
        let fade = rate
        // Each 50 ms of the fade is quieter, relative to the hit under the menu alone, than the one before.
        var lastRatio: Float = 1.01
        var blocks = 0
        for block in stride(from: quit, to: quit + fade, by: rate / 20) {
            let range = (block * 2)..<((block + rate / 20) * 2)
            let reference = SampleAnalysis.rms(ringing.samples[range])
            guard reference > 1e-5 else { break }
            let ratio = SampleAnalysis.rms(faded.samples[range]) / reference
            #expect(ratio < lastRatio, "fade block at \(block) frames: \(ratio)")
            lastRatio = ratio
            blocks += 1
        }
        #expect(blocks >= 4, "the hit rings under the menu long enough to hear the fade")
    }

    /// The level of a render's samples from `start` to `end` seconds.
    static func level(_ render: Render, from start: Double, to end: Double) -> Float {
        let a = Int(start * Double(render.sampleRate)) * 2
        let b = Int(end * Double(render.sampleRate)) * 2
        return SampleAnalysis.rms(render.samples[a..<min(b, render.samples.count)])
    }

    @Test func reverbAddsATailAfterTheHit() throws {
        let dry = try Self.render(["snare", "wait 2"], music: false)
        let wet = try Self.render(["reverb hangar", "snare", "wait 2"], music: false)
        let off = try Self.render(["reverb hangar", "reverb off", "snare", "wait 2"], music: false)
        #expect(wet.lines.contains { $0.hasPrefix("reverb: hangar") })
        #expect(off.lines.contains("reverb: off"))
        let dryTail = Self.level(dry, from: 1, to: 2)
        let wetTail = Self.level(wet, from: 1, to: 2)
        #expect(wetTail > 1e-3, "the hangar rings on a second after the hit")
        #expect(wetTail > dryTail * 10)
        #expect(Self.level(off, from: 1, to: 2) <= dryTail * 1.01 + 1e-6, "reverb off: no tail")
    }

    @Test func occludeLowersAndDarkensAPad() throws {
        let clear = try Self.render(["snare", "wait 0.5"], music: false)
        let occluded = try Self.render(["occlude snare -30", "snare", "wait 0.5"], music: false)
        let cleared = try Self.render(["occlude snare -30", "occlude snare 0", "snare", "wait 0.5"], music: false)
        #expect(occluded.lines.contains("snare: occluded by -30 dB"))
        let band = { (r: Render, b: ClosedRange<Double>) in
            SampleAnalysis.level(
                of: SampleAnalysis.channel(Array(r.samples[0..<(r.sampleRate / 2 * 2)]), 0, of: 2), inBand: b,
                sampleRate: r.sampleRate)
        }
        let lowDrop = Self.decibels(band(occluded, 100...400) / band(clear, 100...400))
        let highDrop = Self.decibels(band(occluded, 4_000...12_000) / band(clear, 4_000...12_000))
        #expect(
            Self.decibels(Self.level(occluded, from: 0, to: 0.5) / Self.level(clear, from: 0, to: 0.5)) < -6, "lower")
        #expect(highDrop < lowDrop - 10, "and darker: highs \(highDrop) dB, lows \(lowDrop) dB")
        #expect(cleared.samples == clear.samples, "occlude 0 is clear again")
    }

    @Test func menuLowersTheHighBandOfPadsAndMusic() throws {
        let normal = try Self.render(["snare", "wait 0.5"], music: false)
        let menu = try Self.render(["menu on", "wait 0.5", "snare", "wait 0.5"], music: false)
        let back = try Self.render(["menu on", "wait 0.5", "menu off", "wait 0.5", "snare", "wait 0.5"], music: false)
        #expect(menu.lines.contains { $0.hasPrefix("menu: on") })
        func high(_ r: Render, from start: Double) -> Float {
            let a = Int(start * Double(r.sampleRate)) * 2
            let slice = Array(r.samples[a..<(a + r.sampleRate / 2 * 2)])
            return SampleAnalysis.level(
                of: SampleAnalysis.channel(slice, 0, of: 2), inBand: 3_000...12_000, sampleRate: r.sampleRate)
        }
        #expect(Self.decibels(high(menu, from: 0.5) / high(normal, from: 0)) < -20, "the menu muffles the pads")
        // and lowers them 10 dB: the low band, below the low-pass shelf, shows the volume alone.
        func low(_ r: Render, from start: Double) -> Float {
            let a = Int(start * Double(r.sampleRate)) * 2
            let slice = Array(r.samples[a..<(a + r.sampleRate / 2 * 2)])
            return SampleAnalysis.level(
                of: SampleAnalysis.channel(slice, 0, of: 2), inBand: 40...300, sampleRate: r.sampleRate)
        }
        let lowDrop = Self.decibels(low(menu, from: 0.5) / low(normal, from: 0))
        #expect(abs(lowDrop - Double(Drumpad.menuDepth)) < 1.5, "the menu lowers the pads 10 dB: \(lowDrop) dB")
        #expect(abs(Self.decibels(high(back, from: 1) / high(normal, from: 0))) < 0.5, "menu off: as before")
        let music = try Self.render(["play", "wait 1"])
        let musicMenu = try Self.render(["play", "menu on", "wait 1"])
        #expect(Self.decibels(high(musicMenu, from: 0.5) / high(music, from: 0.5)) < -15, "and the music")
        #expect(Self.decibels(Self.level(musicMenu, from: 0.5, to: 1) / Self.level(music, from: 0.5, to: 1)) < -6)
    }

    @Test func environmentAndSessionCommandsSayWhatTheEngineDecided() throws {
        let render = try Self.render([
            "env unplug", "env plug", "session ambient", "env silent on", "snare", "wait 0.2",
            "env silent off", "env call-begin", "env call-end resume", "env call-end",
            "session playback duck", "env other-audio on", "env other-audio off", "session playback loud",
        ])
        let session = render.lines.filter { $0.hasPrefix("session:") }
        #expect(session.contains("session: music paused: headphones unplugged"))
        #expect(session.contains { $0.contains("effects muted") && $0.contains("silent switch on") })
        #expect(session.contains { $0.contains("effects paused") && $0.contains("interruption began") })
        #expect(session.contains { $0.hasPrefix("session: ignored:") }, "a second call-end is ignored, with the reason")
        #expect(render.lines.contains { $0.hasPrefix("session: expected") }, "a bad session line is refused")
        // The snare played under the silent switch in ambient is muted, time running:
        // it is heard only from the moment the switch is turned off, mid-sound.
        let heard = try #require(SampleAnalysis.firstAudibleFrame(render.samples, channels: 2))
        #expect((9_600...(9_600 + render.updateInterval + render.latencyFrames)).contains(heard))
    }

    @Test(arguments: [("1/8", 0.1, 0.25), ("1/8", 0.4, 0.5), ("on", 0.1, 0.5), ("1/16", 0.13, 0.25), ("1/4", 0.5, 0.5)])
    func quantizedHitsLandOnTheGrid(_ grid: String, _ typed: Double, _ expected: Double) throws {
        // With no song playing the grid is 120 BPM from engine time zero: a beat every 0.5 s.
        let render = try Self.render(["quantize \(grid)", "wait \(typed)", "snare", "wait 1"])
        // The snare variation's own first audible frame, at the centre pan's gain (-3 dB per side)
        // and the pad's random volume (-1...0 dB, so the threshold is crossed a little later or not).
        let variation = try #require(render.started.first, "the snare started")
        #expect(variation.hasPrefix("snare"))
        let snare = try Assets.readWAV(Assets.drums.appendingPathComponent(variation))
        let attacks = try [Float(1), 0.891].map { gain in
            try #require(SampleAnalysis.firstAudibleFrame(snare.samples, channels: 1, threshold: 1e-3 / (0.7 * gain)))
        }
        let attack = attacks.min()!...attacks.max()!
        let found = try #require(SampleAnalysis.firstAudibleFrame(render.samples, channels: 2, threshold: 1e-3))
        // A hit typed on a grid point cannot be heard before the output latency: it starts at once.
        let point = max(Int(expected * 48_000), Int(typed * 48_000) + render.latencyFrames)
        #expect(
            (point + attack.lowerBound - 1...point + attack.upperBound + 1).contains(found),
            "heard at \(found), the grid point is \(point) (+\(attack) of attack)")
    }

    // MARK: The binary

    static func drumpad() throws -> String {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("drumpad"))
        }
        candidates.append(Assets.root.appendingPathComponent(".build/debug/drumpad"))
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return try #require(found, "build drumpad first (swift build --build-tests)").path
    }

    /// Runs the binary with `input` on stdin; returns its status and output.
    static func run(input: Data, arguments: [String], in directory: URL) throws -> (status: Int32, stdout: String) {
        let inputURL = directory.appendingPathComponent("input")
        try input.write(to: inputURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try drumpad())
        process.arguments = ["--assets", Assets.root.appendingPathComponent("Assets").path] + arguments
        process.currentDirectoryURL = directory
        process.standardInput = try FileHandle(forReadingFrom: inputURL)
        let out = directory.appendingPathComponent("stdout")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: try Data(contentsOf: out), as: UTF8.self))
    }

    @Test func malformedInputNeverStopsTheDemo() throws {
        var garbage = SplitMix64(seed: 0xD0D0)
        var input = Data()
        input += Data("bogus\nsnare 999\nwait -1\nseek 99:99\nsession loud\nenv unplug now\n\u{1B}[2J\n".utf8)
        input += Data((0..<4_096).map { _ in UInt8(truncatingIfNeeded: garbage.next()) })
        input += Data("\n".utf8) + Data(repeating: UInt8(ascii: "x"), count: 200_000) + Data("\n".utf8)
        input += Data("snare ".utf8) + Data(repeating: UInt8(ascii: "9"), count: 100_000) + Data("\n".utf8)
        input += Data([0xFF, 0xFE, 0x00, 0x0A, 0xC3, 0x28, 0x0A])
        input += Data("bass\nwait 0.25\n".utf8)  // end of input without quit
        try withTemporaryDirectory { dir in
            let wav = dir.appendingPathComponent("garbage.wav")
            let result = try Self.run(input: input, arguments: ["--output", wav.path], in: dir)
            #expect(result.status == 0)
            #expect(result.stdout.contains("Sound went to \(wav.path)"))
            #expect(result.stdout.contains("unknown command \"bogus\""))
            #expect(result.stdout.contains("line too long"))
            let read = try Media.read(wav)
            #expect(read.format.channelCount == 2 && read.format.sampleRate == 48_000)
            // The bass hit after all that garbage still sounds, and the file holds the wait and the fade.
            #expect(read.floats.count / 2 >= 48_000 + 12_000)
            #expect(Self.peak(read.floats[...]) > 0.1)
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
                $0.hasSuffix(".partial")
            }
            #expect(leftovers.isEmpty)
        }
    }

    @Test func badOptionsSayWhyAndExitNonZero() throws {
        try withTemporaryDirectory { dir in
            let result = try Self.run(input: Data(), arguments: ["--quantize", "1/3"], in: dir)
            #expect(result.status == 2)
        }
    }
}

@Suite struct BeatGridTests {
    @Test func pointsAreExactFramesThatNeverDrift() {
        // 97 BPM in sixteenths at 48 kHz: a step of 7,422.68 frames, each point floored from the origin.
        let grid = BeatGrid(
            beatsPerMinute: 97, origin: MediaTime(frames: 1_000, sampleRate: 48_000), divisionsPerBeat: 4)
        for k in [0, 1, 2, 3, 1_000, 123_457] as [Int64] {
            let exact = 1_000 + (k * 48_000 * 60) / (97 * 4)
            let point = grid.nextPoint(atOrAfter: MediaTime(frames: exact, sampleRate: 48_000), sampleRate: 48_000)
            #expect(point.frames(atSampleRate: 48_000) == exact)
            let after = grid.nextPoint(atOrAfter: MediaTime(frames: exact + 1, sampleRate: 48_000), sampleRate: 48_000)
            #expect(after.frames(atSampleRate: 48_000) == 1_000 + ((k + 1) * 48_000 * 60) / (97 * 4))
        }
        // The grid extends before its origin: the point before 1,000 is -6,423, so from 0 the next is the origin.
        #expect(grid.nextPoint(atOrAfter: .zero, sampleRate: 48_000).frames(atSampleRate: 48_000) == 1_000)
        let negative = grid.nextPoint(atOrAfter: MediaTime(frames: -7_000, sampleRate: 48_000), sampleRate: 48_000)
        #expect(negative.frames(atSampleRate: 48_000) == -6_423)
    }

    @Test func nonsenseTemposFallBackToTheDefault() {
        #expect(
            BeatGrid(beatsPerMinute: 0, origin: .zero, divisionsPerBeat: 0).beatsPerMinute
                == BeatGrid.defaultBeatsPerMinute)
        #expect(
            BeatGrid(beatsPerMinute: 5_000, origin: .zero, divisionsPerBeat: 1).beatsPerMinute
                == BeatGrid.defaultBeatsPerMinute)
    }

    @Test func demoSongsCarryTheirTempo() async throws {
        let song = Assets.music.appendingPathComponent("garage-tapes-01-open-circuit.ogg")
        let tags = try await AudioAsset(url: song).load(.tags)
        #expect(tags.beatsPerMinute == Int(try #require(Assets.vorbisComments(song)["BPM"]?.first)))
    }
}

@Suite struct TerminalPickerTests {
    @Test func browsesAndPicksOneSongOrSeveral() throws {
        let library = try #require(DrumpadDemoTests.library)
        let songs = try MediaQuery.songs(in: library).items
        var single = TerminalPicker(library: library)
        #expect(single.handle("4").result == nil)  // songs
        #expect(single.handle("99").result == nil)  // no such row: refused, still open
        #expect(single.handle("2").result == .didPick(MediaItemCollection(items: [songs[1]])))

        var multiple = TerminalPicker(library: library)
        _ = multiple.handle("multi")
        _ = multiple.handle("3")  // albums
        _ = multiple.handle("1")  // the first album's songs
        let album = try #require(try library.albumsForTest().first)
        #expect(multiple.handle("all").result == nil)
        _ = multiple.handle("back")
        _ = multiple.handle("back")
        _ = multiple.handle("\u{1B}[A garbage \u{0}")
        #expect(multiple.handle("done").result == .didPick(MediaItemCollection(items: album)))

        var cancelled = TerminalPicker(library: library)
        _ = cancelled.handle("1")
        #expect(cancelled.handle("cancel").result == .didCancel)
    }
}

extension MediaLibrary {
    /// Each album's songs, in the albums query's order.
    func albumsForTest() throws -> [[MediaItem]] { try MediaQuery.albums(in: self).collections.map(\.items) }
}
