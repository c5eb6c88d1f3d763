import Backbeat
import BackbeatTesting
import DrumpadCore
import Foundation
import Testing

/// The demo's level music commands, rendered offline: `intensity`, `section`
/// and `stinger` checked on the samples against the same script without them.
@Suite struct DrumpadLevelMusicTests {
    static let bar = 96_000  // 120 BPM, 4/4, 48 kHz
    static let beat = 24_000

    /// The engine frame a demo line reported, from "… at SECONDS s".
    static func reportedFrame(_ render: DrumpadDemoTests.Render, _ prefix: String) throws -> Int {
        let line = try #require(render.lines.first { $0.hasPrefix(prefix) }, "\(render.lines)")
        let seconds = try #require(
            line.split(separator: " ").dropLast().last.flatMap { Double($0) }, "no time in \"\(line)\"")
        return Int((seconds * 48_000).rounded())
    }

    /// The RMS of the left channel's second difference: the level of the highs.
    static func highs(_ stereo: [Float]) -> Float {
        let left = SampleAnalysis.channel(stereo, 0, of: 2)
        guard left.count > 2 else { return 0 }
        var second = [Float](repeating: 0, count: left.count - 2)
        for i in second.indices {
            let a: Float = left[i + 2] - left[i + 1]
            let b: Float = left[i + 1] - left[i]
            second[i] = a - b
        }
        return SampleAnalysis.rms(second)
    }

    /// The first frame at which two renders differ.
    static func firstDifference(_ a: [Float], _ b: [Float]) -> Int? {
        zip(a, b).enumerated().first { abs($0.element.0 - $0.element.1) > 1e-6 }.map { $0.offset / 2 }
    }

    @Test func intensityOneBringsInTheDrumsLayer() throws {
        let quiet = try DrumpadDemoTests.render(["section explore", "intensity 0", "wait 4"], music: false)
        let loud = try DrumpadDemoTests.render(["section explore", "intensity 1", "wait 4"], music: false)
        let start = try Self.reportedFrame(quiet, "section: explore starts")
        // The loop's first bar (the drums stem is silent through the intro).
        let range = (2 * (start + Self.bar))..<(2 * (start + 2 * Self.bar))
        let (a, b) = (Array(quiet.samples[range]), Array(loud.samples[range]))
        // The hats come in: the level of the highs (the left channel's second difference) rises.
        let (highA, highB) = (Self.highs(a), Self.highs(b))
        #expect(highB > 2 * highA, "highs: \(highA) at intensity 0, \(highB) at 1")
        #expect(SampleAnalysis.rms(b) > 1.2 * SampleAnalysis.rms(a), "the drums add level")
        #expect(quiet.lines.contains("intensity: 0, drums layer at 0"), "\(quiet.lines)")
        #expect(loud.lines.contains("intensity: 1, drums layer at 1"), "\(loud.lines)")
    }

    @Test func sectionChangesOnTheNextBar() throws {
        let stay = try DrumpadDemoTests.render(["section explore", "wait 2.7", "wait 3"], music: false)
        let change = try DrumpadDemoTests.render(
            ["section explore", "wait 2.7", "section combat", "wait 3"], music: false)
        let start = try Self.reportedFrame(change, "section: explore starts")
        let reported = try Self.reportedFrame(change, "section: combat on the next bar")
        // The next bar line after the command (typed 2.7 s in: the bar at 4 s from the section's start).
        #expect(reported == start + 2 * Self.bar, "combat at \(reported), explore began at \(start)")
        // Heard there and not before: the first sample where the two renders part.
        let heard = try #require(Self.firstDifference(stay.samples, change.samples))
        #expect(abs(heard - reported) <= 1, "the change is heard at \(heard), the bar is at \(reported)")
        // And it is combat's content: its crash and sixteenth-note arpeggio two octaves up bring highs.
        let after = (2 * reported)..<(2 * (reported + Self.beat))
        let high = { (r: DrumpadDemoTests.Render) in Self.highs(Array(r.samples[after])) }
        #expect(high(change) > 2 * high(stay), "highs after the bar: \(high(change)) vs \(high(stay))")
        #expect(change.lines.contains { $0.hasPrefix("section: combat on the next bar") })
    }

    @Test func stingerLandsOnTheNextBeat() throws {
        let plain = try DrumpadDemoTests.render(["section explore", "wait 1.3", "wait 2"], music: false)
        let stung = try DrumpadDemoTests.render(["section explore", "wait 1.3", "stinger", "wait 2"], music: false)
        let start = try Self.reportedFrame(stung, "section: explore starts")
        let reported = try Self.reportedFrame(stung, "stinger: on the next beat")
        #expect(reported == start + 3 * Self.beat, "stinger at \(reported), explore began at \(start)")
        let heard = try #require(Self.firstDifference(plain.samples, stung.samples))
        #expect(abs(heard - reported) <= 1, "the stinger is heard at \(heard), the beat is at \(reported)")
    }

    @Test func aStingerTypedRightAfterTheSectionLandsOnItsFirstBeat() throws {
        // `section explore` then `stinger` at once: explore is scheduled, not heard yet.
        let plain = try DrumpadDemoTests.render(["section explore", "wait 2"], music: false)
        let stung = try DrumpadDemoTests.render(["section explore", "stinger", "wait 2"], music: false)
        let start = try Self.reportedFrame(stung, "section: explore starts")
        let reported = try Self.reportedFrame(stung, "stinger: on the next beat")
        #expect(reported == start, "stinger at \(reported), explore begins at \(start)")
        let heard = try #require(Self.firstDifference(plain.samples, stung.samples))
        #expect(abs(heard - reported) <= 1, "the stinger is heard at \(heard), explore begins at \(reported)")
    }

    /// The shift (in `range`) at which `out` from `from` matches `reference` best over `count` stereo frames, and the worst difference there.
    static func match(_ out: [Float], from: Int, _ reference: [Float], shifts range: ClosedRange<Int>, count: Int)
        -> (shift: Int, worst: Float)
    {
        func worst(_ shift: Int) -> Float {
            var w: Float = 0
            for k in 0..<count * 2 { w = max(w, abs(out[from * 2 + k] - reference[(from - shift) * 2 + k])) }
            return w
        }
        let best = range.min { worst($0) < worst($1) }!
        return (best, worst(best))
    }

    @Test func callPausesTheLevelMusicAndItsEndResumesItWhereItWas() throws {
        let lead = ["section explore", "intensity 1", "wait 3"]
        let reference = try DrumpadDemoTests.render(lead + ["wait 3"], music: false)
        let resumed = try DrumpadDemoTests.render(
            lead + ["env call-begin", "wait 1", "env call-end resume", "wait 2"], music: false)
        let kept = try DrumpadDemoTests.render(
            lead + ["env call-begin", "wait 1", "env call-end", "wait 2"], music: false)
        let rate = resumed.sampleRate
        let settle = 2 * resumed.updateInterval + resumed.latencyFrames
        let (call, end) = (3 * rate, 4 * rate)
        // Up to the call, the three renders are the same music.
        #expect(resumed.samples[..<(call * 2)] == reference.samples[..<(call * 2)])
        #expect(SampleAnalysis.rms(reference.samples[((call - rate / 2) * 2)..<(call * 2)]) > 0.01)
        // During the call: silence (the music paused, not muted: its time stops).
        for r in [resumed, kept] {
            #expect(DrumpadDemoTests.peak(r.samples[((call + settle) * 2)..<(end * 2)]) == 0)
        }
        // Ended with "resume": it goes on from where it was, sample for sample, a call's length later.
        let from = end + settle
        let found = Self.match(
            resumed.samples, from: from, reference.samples, shifts: (rate - settle)...(rate + settle), count: rate / 2)
        #expect(found.worst < 1e-4, "resumed music against the uninterrupted music \(found.shift) frames earlier")
        #expect(abs(found.shift - rate) <= resumed.updateInterval, "paused for the call: \(found.shift) frames")
        // Ended without: it stays paused (the game resumes it).
        #expect(DrumpadDemoTests.peak(kept.samples[(end * 2)...]) == 0)
    }

    @Test func quitFadesTheLevelMusicOnceToSilenceWithTheRest() throws {
        // The level music, the application's music and a tambourine at quit, against the same left to play on.
        let lead = ["play", "section explore", "intensity 1", "wait 1", "tambourine", "wait 0.05"]
        let faded = try DrumpadDemoTests.render(lead + ["quit"])
        let reference = try DrumpadDemoTests.render(lead + ["wait 1.5"])
        let alone = try DrumpadDemoTests.render(["section explore", "intensity 1", "wait 1.05", "quit"], music: false)
        let rate = faded.sampleRate
        let quit = rate + rate / 20
        let fade = rate
        #expect(SampleAnalysis.rms(alone.samples[((quit - rate / 4) * 2)..<(quit * 2)]) > 0.01, "level music plays")
        for (r, name) in [(faded, "all"), (alone, "level music alone")] {
            // One fade: shutdown adds no second one.
            #expect(r.frames == quit + fade + r.updateInterval + r.latencyFrames, "\(name)")
            #expect(
                DrumpadDemoTests.peak(r.samples[((quit + fade + r.latencyFrames) * 2)...]) < 1e-4,
                "\(name): silent after the fade")
        }
        // Each 50 ms of the fade is quieter, relative to the unfaded render, than the one before.
        var lastRatio: Float = 1.01
        for block in stride(from: quit, to: quit + fade - rate / 20, by: rate / 20) {
            let range = (block * 2)..<((block + rate / 20) * 2)
            let ratio = SampleAnalysis.rms(faded.samples[range]) / SampleAnalysis.rms(reference.samples[range])
            #expect(ratio < lastRatio, "fade block at \(block) frames: \(ratio) after \(lastRatio)")
            lastRatio = ratio
        }
        #expect(lastRatio < 0.2)
        let span = (quit * 2)..<(faded.samples.count)
        let jump = SampleAnalysis.maxJump(Array(faded.samples[span]), channels: 2)
        #expect(jump <= SampleAnalysis.maxJump(Array(reference.samples[span]), channels: 2) + 1e-3, "no click")
    }

    @Test(arguments: [
        ("intensity 2", "intensity: expected a level from 0 to 1"),
        ("intensity -0.5", "intensity: expected a level from 0 to 1"),
        ("intensity", "intensity: expected a level from 0 to 1"),
        ("section boss", #"section: no section named "boss" (have combat, explore)"#),
        ("section", "section: expected a section name"),
        ("stinger", "stinger: no level music playing"),
        ("stinger now", "stinger: expected no arguments"),
    ])
    func badLevelMusicInputIsOneLine(_ line: String, _ expected: String) throws {
        let render = try DrumpadDemoTests.render([line, "wait 0.1"], music: false)
        #expect(render.lines.contains { $0.contains(expected) }, "\(render.lines)")
        // Nothing started: the render stays silent.
        #expect(SampleAnalysis.peak(render.samples) == 0)
    }
}
