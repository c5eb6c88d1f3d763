import Testing

@testable import BackbeatMusic

/// The players' queue state machine on its own: no engine, no stream, only
/// the actions it returns and the state it reaches.
@Suite struct QueueStateMachineTests {
    typealias Machine = QueueStateMachine<String>

    static let songs = ["a", "b", "c", "d", "e"]
    static let albums: [String?] = ["X", "X", "Y", "Y", nil]
    static let modes = MusicPlayer.RepeatMode.allCases.flatMap { r in
        MusicPlayer.ShuffleMode.allCases.map { (r, $0) }
    }

    /// The application player's machine: the queue stays, a position moves.
    static func cycling(
        _ repeatMode: MusicPlayer.RepeatMode = .none, _ shuffleMode: MusicPlayer.ShuffleMode = .off,
        keys: [String] = songs
    ) -> Machine {
        var m = Machine(consumesPlayed: false, planDepth: 1, planLimit: 4)
        #expect(m.setQueue(keys, albums: keys == songs ? albums : nil) == .stop)
        _ = m.seedShuffle(7)
        _ = m.setShuffleMode(shuffleMode)
        _ = m.setRepeatMode(repeatMode)
        return m
    }

    /// The queue player's machine: played items leave, or go to the back when it loops.
    static func consuming(_ keys: [String], loops: Bool = false) -> Machine {
        var m = Machine(consumesPlayed: true, planDepth: 2, planLimit: 2)
        _ = m.setQueue(keys)
        _ = m.setRepeatMode(loops ? .all : .none)
        return m
    }

    /// The current play and the planned ones a `.restart` or `.setUpcoming` hands the stream.
    static func stream(_ action: Machine.Action) -> [String]? {
        switch action {
        case .restart(let current, let upcoming, _): [current.key] + upcoming.map(\.key)
        case .setUpcoming(let upcoming, let current): [current.key] + upcoming.map(\.key)
        case .none, .stop: nil
        }
    }

    @Test(
        "End of item, every repeat and shuffle mode: the plan carries on gaplessly, each cycle plays every song once",
        arguments: modes)
    func endOfItem(repeatMode: MusicPlayer.RepeatMode, shuffleMode: MusicPlayer.ShuffleMode) throws {
        var m = Self.cycling(repeatMode, shuffleMode)
        let first = try #require(m.currentKey)
        let start = m.start(at: 0)
        guard case .restart(let current, let upcoming, let rampIn) = start else {
            Issue.record("start gave \(start)")
            return
        }
        #expect(current.key == first && !rampIn && upcoming.count == 1)
        var heard = [first]
        for _ in 0..<(2 * Self.songs.count) {
            let planned = m.planned.first
            let action = m.advance()
            guard let planned else {
                #expect(action == .stop && m.current == nil, "nothing planned: the queue is done")
                break
            }
            // The planned play becomes current as it is: its audio is already queued.
            #expect(m.current == planned)
            guard case .setUpcoming(let next, let after) = action else {
                Issue.record("advance gave \(action)")
                return
            }
            #expect(after == planned && next == m.planned)
            heard.append(planned.key)
        }
        switch repeatMode {
        case .one:
            #expect(heard == Array(repeating: first, count: heard.count) && heard.count == 11)
        case .none:
            #expect(heard.count == 5 && Set(heard) == Set(Self.songs))
            #expect(m.position == 0, "stopped at the first song in order")
        case .all:
            #expect(heard.count == 11)
            #expect(Set(heard[0..<5]) == Set(Self.songs) && Set(heard[5..<10]) == Set(Self.songs))
        }
        if shuffleMode == .off {
            #expect(
                heard.prefix(repeatMode == .one ? 1 : 5)
                    == ["a", "b", "c", "d", "e"].prefix(repeatMode == .one ? 1 : 5))
        }
        if shuffleMode == .albums, repeatMode != .one {
            // Albums stay together, in queue order.
            let x = heard.prefix(5).firstIndex(of: "a")!
            #expect(heard[x + 1] == "b")
            let y = heard.prefix(5).firstIndex(of: "c")!
            #expect(heard[y + 1] == "d")
        }
    }

    @Test(
        "Skip ignores repeat-one and restarts the stream; at the end it stops, or wraps with repeat all",
        arguments: modes)
    func skip(repeatMode: MusicPlayer.RepeatMode, shuffleMode: MusicPlayer.ShuffleMode) {
        var m = Self.cycling(repeatMode, shuffleMode)
        _ = m.start(at: 0)
        var order = [m.currentKey!]
        for _ in 0..<4 {
            let action = m.advance(skipping: true, reusePlan: false)
            #expect(Self.stream(action)?.first == m.currentKey, "a skip loads the next song afresh")
            if case .restart(let current, _, _) = action { #expect(current.startFrame == 0) }
            order.append(m.currentKey!)
        }
        #expect(Set(order) == Set(Self.songs), "five skips visit every song once, whatever the repeat mode")
        let last = m.advance(skipping: true, reusePlan: false)
        if repeatMode == .all {
            #expect(Self.stream(last) != nil && m.current != nil)
        } else {
            #expect(last == .stop && m.current == nil && m.position == 0)
        }
        // Skipping while stopped moves without loading.
        var stopped = Self.cycling(repeatMode, shuffleMode)
        let before = stopped.currentKey
        #expect(stopped.advance(skipping: true, reusePlan: false, load: false) == .none)
        #expect(stopped.current == nil && stopped.currentKey != before)
    }

    @Test(
        "Previous: the song before in order; at the start, the last with repeat all, else the same song again",
        arguments: modes)
    func previous(repeatMode: MusicPlayer.RepeatMode, shuffleMode: MusicPlayer.ShuffleMode) {
        var m = Self.cycling(repeatMode, shuffleMode)
        let order = m.order.order.map { Self.songs[$0] }
        _ = m.start(at: 0)
        let atStart = m.previous()
        if repeatMode == .all {
            #expect(m.currentKey == order.last)
        } else {
            #expect(m.currentKey == order.first)
        }
        #expect(Self.stream(atStart)?.first == m.currentKey)
        _ = m.advance(skipping: true, reusePlan: false)
        _ = m.advance(skipping: true, reusePlan: false)
        let now = m.order.order.map { Self.songs[$0] }
        let here = m.position!
        let back = m.previous()
        #expect(Self.stream(back)?.first == m.currentKey)
        if here > 0 {
            #expect(m.currentKey == now[here - 1])
        } else {
            #expect(m.currentKey == (repeatMode == .all ? now.last : now.first))
        }
        // A consuming queue keeps no history: previous restarts the current song.
        var q = Self.consuming(["a", "b"])
        _ = q.start(at: 0)
        #expect(Self.stream(q.previous()) == ["a", "b"] && q.currentKey == "a")
    }

    @Test(
        "Insert: after the current song it is planned next; at the end it comes last in order; into an empty queue it loads",
        arguments: modes)
    func insert(repeatMode: MusicPlayer.RepeatMode, shuffleMode: MusicPlayer.ShuffleMode) {
        var m = Self.cycling(repeatMode, shuffleMode)
        _ = m.start(at: 0)
        let current = m.currentKey!
        let action = m.insert("new", after: current)
        #expect(m.currentKey == current, "the current song stays current")
        #expect(Self.stream(action) == [current, repeatMode == .one ? current : "new"])
        #expect(m.keys[m.keys.firstIndex(of: current)! + 1] == "new")
        _ = m.insert("end", after: nil)
        #expect(m.keys.last == "end" && m.order.order.last == m.keys.count - 1)
        #expect(Set(m.order.order) == Set(m.keys.indices), "the order still covers the queue once")
        // Before the current song in order: the current song keeps playing.
        let firstInOrder = m.keys[m.order.order[0]]
        if firstInOrder != current {
            _ = m.insert("early", after: firstInOrder)
            #expect(m.currentKey == current)
        }
        var empty = Self.cycling(repeatMode, shuffleMode, keys: [])
        #expect(empty.currentKey == nil && empty.start(at: 0) == .stop)
        #expect(Self.stream(empty.insert("only", after: nil)) == ["only"] + (repeatMode == .none ? [] : ["only"]))
    }

    @Test(
        "Remove: a planned song leaves the plan; the current one gives way to the next in order; the last one stops",
        arguments: modes)
    func remove(repeatMode: MusicPlayer.RepeatMode, shuffleMode: MusicPlayer.ShuffleMode) {
        var m = Self.cycling(repeatMode, shuffleMode)
        _ = m.start(at: 0)
        let order = m.order.order.map { Self.songs[$0] }
        if repeatMode != .one {
            let planned = m.planned[0].key
            let action = m.remove(planned)
            #expect(!m.keys.contains(planned) && m.currentKey == order[0])
            #expect(Self.stream(action) == [order[0], order[2]])
        }
        let current = m.currentKey!
        let remaining = m.order.order.map { m.keys[$0] }
        let next = remaining[remaining.firstIndex(of: current)! + 1]
        let action = m.remove(current)
        #expect(m.currentKey == next)
        guard case .restart(let entry, _, _) = action else {
            Issue.record("removing the current song gave \(action)")
            return
        }
        #expect(entry.key == next && entry.startFrame == 0)
        #expect(m.remove("not there") == .none)
        for key in m.keys { _ = m.remove(key) }
        #expect(m.keys.isEmpty && m.currentKey == nil && m.current == nil)
    }

    @Test("A failed song is skipped from then on: current, or planned")
    func failures() {
        var m = Self.cycling(.all)
        _ = m.start(at: 0)
        let b = m.planned[0]
        #expect(Self.stream(m.entryFailed(b.id)) == ["a", "c"])
        let a = m.current!
        let action = m.entryFailed(a.id)
        #expect(m.currentKey == "c" && Self.stream(action) == ["c", "d"])
        for _ in 0..<3 { _ = m.advance() }
        #expect(m.currentKey == "c", "the next cycle skips a and b too")
        #expect(m.entryFailed(12_345) == .none, "an entry the machine never made")
    }

    @Test("The plan grows one play at a time when the stream runs out, up to its limit")
    func extendPlan() {
        var m = Self.cycling(.one)
        #expect(m.extendPlan() == .none, "nothing loaded")
        _ = m.start(at: 480)
        #expect(m.current?.startFrame == 480)
        for count in 2...4 {
            #expect(Self.stream(m.extendPlan()) == Array(repeating: "a", count: count + 1))
        }
        #expect(m.extendPlan() == .none && m.planned.count == 4)
        // A change keeps the plays still right and replaces the rest.
        let kept = m.planned
        _ = m.setRepeatMode(.all)
        #expect(m.planned.first?.key == "b" && !kept.contains(m.planned[0]))
        var end = Self.cycling(keys: ["a"])
        _ = end.start(at: 0)
        #expect(end.planned.isEmpty && end.extendPlan() == .none, "the end of the queue: nothing to plan")
    }

    @Test("Consuming queue: played songs leave, or go to the back when it loops; failures leave; two are planned")
    func consuming() {
        var q = Self.consuming(["a", "b", "c"])
        #expect(Self.stream(q.start(at: 0)) == ["a", "b", "c"])
        #expect(Self.stream(q.advance()) == ["b", "c"])
        #expect(q.keys == ["b", "c"] && q.upcomingInCycle == ["b", "c"])
        _ = q.setRepeatMode(.all)
        #expect(Self.stream(q.replan()) == ["b", "c", "b"])
        _ = q.advance()
        #expect(q.keys == ["c", "b"], "the song that ended went to the back")
        _ = q.setRepeatMode(.none)
        let failing = q.planned.first!
        #expect(Self.stream(q.entryFailed(failing.id)) == ["c"] && q.keys == ["c"])
        #expect(q.advance() == .stop && q.keys.isEmpty && q.currentKey == nil)
        #expect(Self.stream(q.insert("d", after: nil)) == ["d"])
        // A failed current song leaves; the plan carries on with the next.
        var r = Self.consuming(["a", "b", "c"], loops: true)
        _ = r.start(at: 0)
        let b = r.planned[0]
        #expect(Self.stream(r.entryFailed(r.current!.id)) == ["b", "c", "b"])
        #expect(r.current == b && r.keys == ["b", "c"])
        // Without a plan and without loading (paused), it waits unloaded.
        _ = r.setPlanDepth(0, limit: 0)
        #expect(r.entryFailed(b.id, load: false) == .none)
        #expect(r.current == nil && r.keys == ["c"] && r.currentKey == "c")
        // A loop of one song plans itself; a plan depth of zero plans nothing.
        var one = Self.consuming(["a"], loops: true)
        #expect(Self.stream(one.start(at: 0)) == ["a", "a"])
        #expect(Self.stream(one.setPlanDepth(0, limit: 0)) == ["a"])
        #expect(Self.stream(one.advance()) == ["a"] && one.keys == ["a"])
    }

    @Test("Shuffle changes keep the current song; the same seed gives the same order")
    func shuffleKeepsCurrent() {
        var m = Self.cycling()
        _ = m.advance(skipping: true, reusePlan: false)
        #expect(m.currentKey == "b")
        _ = m.setShuffleMode(.songs)
        #expect(m.currentKey == "b" && m.position == 0)
        #expect(m.setShuffleMode(.songs) == .none)
        var a = Self.cycling(.none, .songs)
        var b = Self.cycling(.none, .songs)
        _ = a.seedShuffle(99)
        _ = b.seedShuffle(99)
        #expect(a.order.order == b.order.order)
    }
}
