import Testing

@testable import BackbeatMusic

/// The application player's order on its own: no engine, no stream.
@Suite struct QueueOrderTests {
    static func order(_ count: Int, albums: [String?]? = nil) -> QueueOrder {
        var order = QueueOrder()
        order.reset(albums: albums ?? Array(repeating: nil, count: count))
        return order
    }

    @Test("In order: the successor is the next position; at the end, nothing, or the next cycle with repeat all")
    func repeatModes() {
        var order = Self.order(3)
        #expect(order.order == [0, 1, 2])
        #expect(order.successor(of: 0, wraps: false)! == (1, false))
        #expect(order.successor(of: 2, wraps: false) == nil)
        order.repeatMode = .all
        #expect(order.successor(of: 2, wraps: false)! == (0, true))
        order.repeatMode = .one
        #expect(order.successor(of: 1, wraps: false)! == (1, false))
        #expect(order.successor(of: 1, wraps: false, ignoreRepeatOne: true)! == (2, false))
    }

    @Test("Failed items are skipped, in this cycle and the next")
    func failedItemsAreSkipped() {
        var order = Self.order(4)
        order.repeatMode = .all
        order.failedItems = [1, 0]
        #expect(order.successor(of: 0, wraps: false)! == (2, false))
        #expect(order.successor(of: 3, wraps: false)! == (2, true))
        order.failedItems = [0, 1, 2, 3]
        #expect(order.successor(of: 3, wraps: false) == nil)
    }

    @Test(
        "Shuffling songs keeps the current item first and visits every item once; a seed reproduces it",
        arguments: [UInt64(1), 42])
    func shuffleSongs(seed: UInt64) {
        var a = Self.order(10)
        var b = Self.order(10)
        _ = a.seed(seed, keeping: nil)
        _ = b.seed(seed, keeping: nil)
        #expect(a.setShuffle(.songs, keeping: 7) == 0)
        _ = b.setShuffle(.songs, keeping: 7)
        #expect(a.order.first == 7 && Set(a.order) == Set(0..<10) && a.order.count == 10)
        #expect(a.order == b.order)
        // The next cycle does not begin with the song this one ends on.
        a.repeatMode = .all
        let last = a.order.last!
        let next = a.successor(of: 9, wraps: false)!
        #expect(next.wraps && a.item(at: next.position, wraps: true) != last)
        a.beginNextCycle()
        #expect(Set(a.order) == Set(0..<10))
    }

    @Test("Shuffling albums keeps each album together, in queue order, starting at the current song's album")
    func shuffleAlbums() {
        let albums: [String?] = ["A", "A", "B", "B", "B", "C", nil]
        var order = Self.order(albums.count, albums: albums)
        _ = order.seed(3, keeping: nil)
        let position = order.setShuffle(.albums, keeping: 3)
        #expect(position.map { order.order[$0] } == 3)
        #expect(order.order.first == 2, "the current song's album starts the cycle, in its own order")
        var runs: [String?] = []
        for i in order.order where runs.last != albums[i] || albums[i] == nil { runs.append(albums[i]) }
        #expect(runs.count == 4, "each album is one run: \(order.order)")
        for album in ["A", "B", "C"] {
            let members = order.order.filter { albums[$0] == album }
            #expect(members == members.sorted())
        }
    }
}
