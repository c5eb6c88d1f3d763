import Backbeat
import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// The one event primitive: handlers removable by token, bounded streams, and
/// where handlers run.
@Suite struct EventBroadcastTests {
    final class Counter: Sendable {
        let value = LockedValueBox(0)
        func add() { value.withLockedValue { $0 += 1 } }
        var count: Int { value.withLockedValue { $0 } }
    }

    @Test("A handler removed by its token is not called again; the others are")
    func cancelledHandlerIsNotCalled() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.01)), name: "blip",
                engine: engine)
            let (kept, removed) = (Counter(), Counter())
            engine.observe { _ in kept.add() }
            let token = engine.observe { _ in removed.add() }
            sound.play()
            _ = try engine.render(frames: 4_800)
            #expect(removed.count > 0 && removed.count == kept.count)
            let before = removed.count
            token.cancel()
            #expect(token.isCancelled)
            sound.play()
            _ = try engine.render(frames: 4_800)
            #expect(removed.count == before, "not called after cancel()")
            #expect(kept.count > before)
            token.cancel()
        }
    }

    @Test("A handler that cancels another during a delivery stops it at once")
    func cancelDuringDelivery() {
        let broadcast = EventBroadcast<Int>()
        let second = Counter()
        let tokens = LockedValueBox<[ObservationToken]>([])
        tokens.withLockedValue { list in
            list.append(broadcast.observe { _ in tokens.withLockedValue { $0.last?.cancel() } })
        }
        let last = broadcast.observe { _ in second.add() }
        tokens.withLockedValue { $0.append(last) }
        broadcast.send(1)
        broadcast.send(2)
        #expect(second.count == 0)
    }

    @Test("A consumer that never reads holds only the newest events", arguments: [1, 16, 1_024])
    func slowConsumerIsBounded(limit: Int) async {
        let broadcast = EventBroadcast<Int>(bufferLimit: limit)
        let stream = broadcast.events()
        for n in 0..<10_000 { broadcast.send(n) }
        broadcast.finish()
        var received: [Int] = []
        for await n in stream { received.append(n) }
        #expect(received == Array((10_000 - limit)..<10_000), "the newest \(limit), oldest first")
    }

    @Test("The engine's stream keeps the newest 4,096 events of a consumer that has not read")
    func engineStreamIsBounded() async throws {
        let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
        let sound = try SoundEffect(
            buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.001)), name: "tick", engine: engine)
        let stream = engine.events()
        let recorder = EventRecorder(engine)
        for _ in 0..<2_500 {
            sound.play()
            _ = try engine.render(frames: 480)
        }
        let posted = recorder.events.count
        #expect(posted > 4_096, "enough events to overflow the buffer")
        engine.shutdown()
        var received: [PlaybackEvent] = []
        for await event in stream { received.append(event) }
        #expect(received.count == 4_096)
        #expect(received == Array(recorder.events.suffix(4_096)), "the newest, in order")
    }

    @Test("A stream whose consumer stopped is removed; one made after shutdown ends at once")
    func streamsEnd() async throws {
        let broadcast = EventBroadcast<Int>()
        do {
            let stream = broadcast.events()
            let task = Task { for await _ in stream { break } }
            broadcast.send(1)
            await task.value
        }
        // The consumer broke out: its termination removed the stream.
        var removed = false
        for _ in 0..<1_000 where !removed {
            removed = !broadcast.hasObservers
            if !removed { await Task.yield() }
        }
        #expect(removed)
        broadcast.finish()
        var count = 0
        for await _ in broadcast.events() { count += 1 }
        #expect(count == 0)
    }

    @Test("Offline output: handlers run on the thread that called render, before it returns")
    func offlineDeliversOnTheRenderingThread() throws {
        try withOfflineEngine { engine in
            let sound = try SoundEffect(
                buffer: TestSignal.sine(frequency: 440, duration: MediaTime(seconds: 0.01)), name: "blip",
                engine: engine)
            let renderingThread = pthread_self()
            let onRenderingThread = LockedValueBox<[Bool]>([])
            engine.observe { _ in
                onRenderingThread.withLockedValue { $0.append(pthread_equal(pthread_self(), renderingThread) != 0) }
            }
            sound.play()
            _ = try engine.render(frames: 4_800)
            let seen = onRenderingThread.withLockedValue { $0 }
            #expect(!seen.isEmpty && seen.allSatisfy { $0 })
        }
    }
}

/// Players observe the same way: a handler removed by its token hears nothing more.
@Suite struct PlayerObservationTests {
    @Test("A queue player's handler removed by its token is not called again; its stream still is")
    func queuePlayerToken() async throws {
        try await withDCLibraryAsync(count: 2, seconds: 0.2) { _, items in
            let engine = try AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
            let player = try QueuePlayer(engine: engine, items: items.map { PlayerItem(url: $0.assetURL) })
            let seen = LockedValueBox<[QueuePlayer.Event]>([])
            let token = player.observe { event in seen.withLockedValue { $0.append(event) } }
            let stream = player.events()
            player.play()
            _ = try engine.render(frames: 4_800)
            let before = seen.withLockedValue { $0.count }
            #expect(before > 0)
            token.cancel()
            _ = try engine.render(frames: 19_200)  // the second song starts, then the queue ends
            #expect(seen.withLockedValue { $0.count } == before, "not called after cancel()")
            engine.shutdown()
            var streamed = 0
            for await _ in stream { streamed += 1 }
            #expect(streamed > before, "the stream heard the later events too")
        }
    }

    @Test("The application player's handler removed by its token is not called again")
    func musicPlayerToken() throws {
        try withDCLibrary(count: 2, seconds: 0.2) { _, items in
            try withOfflineEngine { engine in
                let player = try MusicPlayer.application(for: engine)
                player.setQueue(items: items)
                player.beginGeneratingPlaybackNotifications()
                let (kept, removed) = (LockedValueBox(0), LockedValueBox(0))
                player.observe { _ in kept.withLockedValue { $0 += 1 } }
                let token = player.observe { _ in removed.withLockedValue { $0 += 1 } }
                player.play()
                _ = try engine.render(frames: 4_800)
                let before = removed.withLockedValue { $0 }
                #expect(before > 0 && before == kept.withLockedValue { $0 })
                token.cancel()
                player.volume = 0.5
                player.skipToNextItem()
                _ = try engine.render(frames: 4_800)
                #expect(removed.withLockedValue { $0 } == before)
                #expect(kept.withLockedValue { $0 } > before)
            }
        }
    }
}
