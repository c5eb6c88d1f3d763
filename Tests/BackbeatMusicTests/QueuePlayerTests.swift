import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatMedia
@testable import BackbeatMusic

@Suite("QueuePlayer")
struct QueuePlayerTests {
    @Test("Gapless: 1 s + 0.5 s of one sine render as one continuous sine, exact to the frame")
    func gaplessSeam() throws {
        try withTemporaryDirectory { dir in
            let a = dir.appendingPathComponent("a.wav")
            let b = dir.appendingPathComponent("b.wav")
            try Songs.write(Songs.sineFrames(0..<48_000), to: a)
            try Songs.write(Songs.sineFrames(48_000..<72_000), to: b)
            try withOfflineEngine { engine in
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: a), PlayerItem(url: b)])
                player.play()
                let out = try engine.render(frames: 96_000)
                let first = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 2))
                let last = try #require(SampleAnalysis.lastAudibleFrame(out, channels: 2))
                #expect(last - first + 1 == 72_000, "1.5 s exactly")
                let expected = Songs.sineFrames(0..<72_000)
                var worst: Float = 0
                for i in 0..<(72_000 * 2) { worst = max(worst, abs(out[first * 2 + i] - expected[i])) }
                #expect(worst < 1e-3, "the output is the sine, sample for sample, through the seam")
                #expect(SampleAnalysis.maxJump(Array(out[(first * 2)...(last * 2 + 1)]), channels: 2) < 0.05)
                #expect(player.currentItem == nil)
            }
        }
    }

    @Test("Items of different rates and channel counts share the stream (resampled, mapped)")
    func mixedFormats() throws {
        try withTemporaryDirectory { dir in
            let mono = dir.appendingPathComponent("mono22k.wav")
            try Songs.write([Float](repeating: 0.25, count: 22_050), to: mono, sampleRate: 22_050, channels: 1)
            let stereo = try Songs.constant(0.5, seconds: 0.5, in: dir, name: "stereo.wav")
            try withOfflineEngine { engine in
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: mono), PlayerItem(url: stereo)])
                player.play()
                let out = try engine.render(frames: 96_000 + 48_000)
                let right = SampleAnalysis.channel(out, 1, of: 2)
                let first = try #require(SampleAnalysis.firstAudibleFrame(right, channels: 1))
                let last = try #require(SampleAnalysis.lastAudibleFrame(right, channels: 1, threshold: 0.01))
                #expect(abs(right[first + 24_000] - 0.25) < 0.01, "mono 22.05 kHz, resampled, in both channels")
                #expect(abs(out[(first + 24_000) * 2] - 0.25) < 0.01)
                #expect(abs(right[first + 48_000 + 12_000] - 0.5) < 0.01)
                #expect(abs(last - first - 72_000) < 100, "1 s then 0.5 s")
            }
        }
    }

    @Test("A missing and a corrupt file in the middle are reported and skipped; the rest plays in order")
    func skipsBadItems() throws {
        try withTemporaryDirectory { dir in
            let one = try Songs.constant(0.1, seconds: 0.5, in: dir, name: "1.wav")
            let missing = dir.appendingPathComponent("missing.ogg")
            let corrupt = try Songs.corrupt(in: dir)
            let two = try Songs.constant(0.2, seconds: 0.5, in: dir, name: "2.wav")
            let three = try Songs.constant(0.3, seconds: 0.5, in: dir, name: "3.wav")
            try withOfflineEngine { engine in
                let items = [one, missing, corrupt, two, three].map(PlayerItem.init(url:))
                let player = try QueuePlayer(engine: engine, items: items)
                let recorder = PlayerEventRecorder(player)
                player.play()
                let out = try engine.render(frames: 48_000 * 2)
                let runs = Songs.runs(SampleAnalysis.channel(out, 0, of: 2)).filter { $0.frames > 100 }
                #expect(runs.map { ($0.value * 10).rounded() } == [1, 2, 3, 0])
                #expect(runs.prefix(3).allSatisfy { abs($0.frames - 24_000) <= 1 }, "each song whole, no gap")
                #expect(items[1].error?.code == .fileNotFound)
                #expect(items[2].error != nil)
                #expect(items[0].status == .readyToPlay && items[3].status == .readyToPlay)
                let failed = recorder.events.compactMap { if case .itemFailed(let item, _) = $0 { item } else { nil } }
                #expect(failed == [items[1], items[2]])
                let ended = recorder.events.compactMap {
                    if case .itemDidPlayToEnd(let item) = $0 { item } else { nil }
                }
                #expect(ended == [items[0], items[3], items[4]])
                #expect(player.items().isEmpty)
            }
        }
    }

    @Test("Each item change and status change raises exactly one event, in order")
    func eventsInOrder() throws {
        try withTemporaryDirectory { dir in
            let a = try Songs.constant(0.1, seconds: 0.3, in: dir, name: "a.wav")
            let b = try Songs.constant(0.2, seconds: 0.3, in: dir, name: "b.wav")
            try withOfflineEngine { engine in
                let items = [PlayerItem(url: a), PlayerItem(url: b)]
                let player = try QueuePlayer(engine: engine, items: items)
                let recorder = PlayerEventRecorder(player)
                player.play()
                player.play()  // a second play changes nothing
                _ = try engine.render(frames: 48_000)
                player.pause()
                _ = try engine.render(frames: 4_800)
                #expect(
                    recorder.events == [
                        .timeControlStatusChanged(.playing),
                        .itemDidPlayToEnd(items[0]), .currentItemChanged(items[1]),
                        .itemDidPlayToEnd(items[1]), .currentItemChanged(nil),
                        .timeControlStatusChanged(.paused),
                    ])
            }
        }
    }

    @Test("Looping the whole queue wraps to the first song, gaplessly")
    func loopsQueue() throws {
        try withTemporaryDirectory { dir in
            let a = try Songs.constant(0.1, seconds: 0.25, in: dir, name: "a.wav")
            let b = try Songs.constant(0.2, seconds: 0.25, in: dir, name: "b.wav")
            try withOfflineEngine { engine in
                let player = try QueuePlayer(engine: engine, items: [PlayerItem(url: a), PlayerItem(url: b)])
                player.loopsQueue = true
                player.play()
                let out = try engine.render(frames: 12_000 * 5)
                let runs = Songs.runs(SampleAnalysis.channel(out, 0, of: 2)).filter { $0.frames > 100 }
                #expect(runs.map { ($0.value * 10).rounded() } == [1, 2, 1, 2, 1])
                #expect(runs.dropFirst().dropLast().allSatisfy { $0.frames == 12_000 })
                #expect(player.items().count == 2)
            }
        }
    }

    @Test("actionAtItemEnd .pause stops at the next item's start; .none rests at the end")
    func actionAtItemEnd() throws {
        try withTemporaryDirectory { dir in
            let a = try Songs.constant(0.1, seconds: 0.25, in: dir, name: "a.wav")
            let b = try Songs.constant(0.2, seconds: 0.25, in: dir, name: "b.wav")
            try withOfflineEngine { engine in
                let items = [PlayerItem(url: a), PlayerItem(url: b)]
                let player = try QueuePlayer(engine: engine, items: items)
                player.actionAtItemEnd = .pause
                player.play()
                let out = try engine.render(frames: 24_000)
                #expect(
                    Songs.runs(SampleAnalysis.channel(out, 0, of: 2)).filter { $0.frames > 100 }.map {
                        ($0.value * 10).rounded()
                    } == [1, 0])
                #expect(player.currentItem == items[1])
                #expect(player.timeControlStatus == .paused)
                #expect(player.currentPlaybackTime == .zero)
                player.actionAtItemEnd = .none
                player.play()
                let rest = try engine.render(frames: 24_000)
                #expect(
                    Songs.runs(SampleAnalysis.channel(rest, 0, of: 2)).filter { $0.frames > 100 }.map {
                        ($0.value * 10).rounded()
                    } == [2, 0])
                #expect(player.currentItem == items[1], "stays on the item it finished")
            }
        }
    }

    @Test("Seeking is sample-accurate; below zero clamps to zero; beyond the end ends the item")
    func seeking() throws {
        try withTemporaryDirectory { dir in
            let a = dir.appendingPathComponent("a.wav")
            try Songs.write(Songs.sineFrames(0..<48_000), to: a)
            let b = try Songs.constant(0.2, seconds: 0.25, in: dir, name: "b.wav")
            try withOfflineEngine { engine in
                let items = [PlayerItem(url: a), PlayerItem(url: b)]
                let player = try QueuePlayer(engine: engine, items: items)
                player.seek(to: MediaTime(frames: 30_000, sampleRate: 48_000))
                player.play()
                let out = try engine.render(frames: 4_800)
                let first = try #require(SampleAnalysis.firstAudibleFrame(out, channels: 2))
                let expected = Songs.sineFrames(30_000..<31_000)
                // The seek ramps in over ~10 ms; after it, the samples are the song's from frame 30 000 on.
                for i in 1_000..<1_200 {
                    #expect(abs(out[(first + i) * 2] - Songs.sineFrames((30_000 + i)..<(30_001 + i))[0]) < 1e-3)
                }
                _ = expected
                #expect(abs(player.currentPlaybackTime.seconds - (30_000.0 + Double(4_800 - first)) / 48_000) < 0.002)
                player.seek(to: MediaTime(seconds: -3))
                _ = try engine.render(frames: 480)
                #expect(player.currentPlaybackTime.seconds < 0.02)
                player.seek(to: MediaTime(seconds: 99))
                _ = try engine.render(frames: 2_400)
                #expect(player.currentItem == items[1])
            }
        }
    }

    @Test("Bad input: play on an empty queue, removing an absent item, inserting twice")
    func badInput() throws {
        try withTemporaryDirectory { dir in
            let a = try Songs.constant(0.1, seconds: 0.25, in: dir, name: "a.wav")
            try withOfflineEngine { engine in
                let player = try QueuePlayer(engine: engine)
                let recorder = PlayerEventRecorder(player)
                player.play()
                let out = try engine.render(frames: 4_800)
                #expect(SampleAnalysis.peak(out) == 0)
                #expect(player.timeControlStatus == .paused)
                player.remove(PlayerItem(url: a))  // not in the queue: nothing happens
                let item = PlayerItem(url: a)
                try player.insert(item, after: nil)
                #expect(throws: BackbeatError.self) { try player.insert(item, after: nil) }
                #expect(throws: BackbeatError.self) { try player.insert(PlayerItem(url: a), after: PlayerItem(url: a)) }
                #expect(player.items() == [item])
                #expect(recorder.events.isEmpty)
                player.play()
                let sound = try engine.render(frames: 4_800)
                #expect(SampleAnalysis.peak(sound) > 0.09)
            }
        }
    }

    @Test("A song deleted from disk while it streams plays to its end from the open file; the queue moves on")
    func deletedWhileStreaming() throws {
        try withTemporaryDirectory { dir in
            let a = try Songs.constant(0.1, seconds: 1, in: dir, name: "a.wav")
            let b = try Songs.constant(0.2, seconds: 0.5, in: dir, name: "b.wav")
            let c = try Songs.constant(0.3, seconds: 0.25, in: dir, name: "c.wav")
            try withOfflineEngine { engine in
                let items = [a, b, c].map(PlayerItem.init(url:))
                let player = try QueuePlayer(engine: engine, items: items)
                player.play()
                var out = try engine.render(frames: 4_800)
                try FileManager.default.removeItem(at: a)  // streaming now
                try FileManager.default.removeItem(at: b)  // not opened yet
                out += try engine.render(frames: 48_000 * 2)
                let runs = Songs.runs(SampleAnalysis.channel(out, 0, of: 2)).filter { $0.frames > 100 }
                #expect(runs.map { ($0.value * 10).rounded() } == [1, 3, 0])
                #expect(items[1].error?.code == .fileNotFound)
            }
        }
    }

    @Test("Removing, inserting and advancing while playing keep the order")
    func editsWhilePlaying() throws {
        try withTemporaryDirectory { dir in
            let urls = try (1...4).map { try Songs.constant(Float($0) / 10, seconds: 0.25, in: dir, name: "\($0).wav") }
            try withOfflineEngine { engine in
                let items = urls.map(PlayerItem.init(url:))
                let player = try QueuePlayer(engine: engine, items: Array(items[0..<3]))
                player.play()
                var out = try engine.render(frames: 6_000)
                player.remove(items[1])
                try player.insert(items[3], after: items[0])
                out += try engine.render(frames: 6_000)
                player.skipToNextItem()  // from 1 to 4
                out += try engine.render(frames: 48_000)
                // Removing an item already decoded ahead restarts the stream where it was (a ~10 ms dip).
                #expect(Songs.order(SampleAnalysis.channel(out, 0, of: 2)) == [1, 4, 3, 0])
            }
        }
    }

    @Test("A crossfade overlaps the next item for the chosen duration, equal-power, without a click")
    func crossfade() throws {
        try withTemporaryDirectory { dir in
            let a = try Songs.constant(0.1, seconds: 1, in: dir, name: "a.wav")
            let b = try Songs.constant(0.3, seconds: 1, in: dir, name: "b.wav")
            try withOfflineEngine { engine in
                let items = [PlayerItem(url: a), PlayerItem(url: b)]
                let player = try QueuePlayer(engine: engine, items: items)
                let recorder = PlayerEventRecorder(player)
                try player.setCrossfadeDuration(MediaTime(seconds: 0.5))
                #expect(player.crossfadeDuration == MediaTime(seconds: 0.5))
                player.play()
                let out = try engine.render(frames: 48_000 * 2)
                let left = SampleAnalysis.channel(out, 0, of: 2)
                let first = try #require(SampleAnalysis.firstAudibleFrame(left, channels: 1))
                let last = try #require(SampleAnalysis.lastAudibleFrame(left, channels: 1))
                #expect(abs(last - first - 72_000) < 600, "1 s + 1 s − 0.5 s of overlap")
                #expect(abs(left[first + 12_000] - 0.1) < 1e-3, "a alone")
                // Halfway through the overlap: 0.1·cos 45° + 0.3·sin 45°.
                #expect(abs(left[first + 36_000] - 0.2828) < 0.01)
                #expect(abs(left[first + 60_000] - 0.3) < 1e-3, "b alone")
                #expect(SampleAnalysis.maxJump(Array(left[first...last]), channels: 1) < 0.01, "no click")
                #expect(
                    recorder.events == [
                        .timeControlStatusChanged(.playing),
                        .itemDidPlayToEnd(items[0]), .currentItemChanged(items[1]),
                        .itemDidPlayToEnd(items[1]), .currentItemChanged(nil),
                        .timeControlStatusChanged(.paused),
                    ])
            }
        }
    }

    @Test("Streaming memory stays fixed for a 20-minute song")
    func streamingMemory() throws {
        try withTemporaryDirectory { dir in
            // 20 minutes of 8 kHz mono 16-bit (19 MB on disk), written in chunks.
            let long = dir.appendingPathComponent("long.wav")
            let writer = try SoundFileWriter(
                url: long, type: .wav16, sampleRate: 8_000, channelCount: 1, overwrite: true)
            let block: [Int16] = (0..<8_000).map { Int16(8_000 * sin(Double($0) * 2 * Double.pi * 220 / 8_000)) }
            for _ in 0..<(20 * 60) { try writer.write(block[...]) }
            try writer.finish()
            let short = try Songs.constant(0.1, seconds: 2, in: dir, name: "short.wav")
            try withOfflineEngine { engine in
                let longPlayer = try QueuePlayer(engine: engine, items: [PlayerItem(url: long)])
                let shortPlayer = try QueuePlayer(engine: engine, items: [PlayerItem(url: short)])
                longPlayer.play()
                shortPlayer.play()
                _ = try engine.render(frames: 9_600)
                let before = residentBytes()
                var most = 0
                for _ in 0..<20 {
                    _ = try engine.render(frames: 24_000)
                    most = max(most, longPlayer.streamBufferBytes)
                }
                #expect(most > 0)
                #expect(most <= longPlayer.stream.capacityBytes, "within the fixed bound, whatever the length")
                #expect(longPlayer.stream.capacityBytes == shortPlayer.stream.capacityBytes)
                #expect(longPlayer.stream.capacityBytes < 1 << 20)
                // Decoding the whole song would take 20 × 60 × 48 000 × 8 bytes = 440 MiB.
                #expect(residentBytes() - before < 48 << 20)
                longPlayer.seek(to: MediaTime(seconds: 20 * 60 - 0.5))
                _ = try engine.render(frames: 48_000)
                #expect(longPlayer.currentItem == nil, "it played to the end after a seek near it")
                #expect(longPlayer.items().isEmpty)
            }
        }
    }
}

/// Resident memory of this process (VmRSS), in bytes.
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (line.split(separator: " ").compactMap { Int($0) }.first ?? 0) * 1024
    }
    return 0
}

/// Collects an engine music player's events (a queue player's, an adaptive player's).
final class PlayerEventRecorder<Event: Sendable>: @unchecked Sendable {
    // @unchecked: `recorded` is only touched under `lock`.
    private let lock = Lock()
    private var recorded: [Event] = []
    init<Player: EngineMusicPlaying>(_ player: Player) where Player.Event == Event {
        _ = player.core.observe { [weak self] e in self?.append(e) }
    }
    private func append(_ e: Event) { lock.withLock { recorded.append(e) } }
    var events: [Event] { lock.withLock { recorded } }
}
