import BackbeatEngine
import Testing

@testable import BackbeatEffects

@Suite("DormantTable")
struct DormantTableTests {
    /// A stand-in for a voice: the table needs only an object per row.
    final class Item {
        let name: String
        init(_ name: String) { self.name = name }
    }

    static let origin = Audio3DPoint(x: 0, y: 0, z: 0)

    @Test("Insert gives rows in order, a removed row is taken again, and the generation rises each time")
    func insertAndRemove() {
        var table = DormantTable<Item>()
        let a = Item("a")
        let b = Item("b")
        let c = Item("c")
        #expect(table.rowCount == 0)
        let g0 = table.generation
        let rowA = table.insert(a)
        let rowB = table.insert(b)
        #expect(rowA == 0 && rowB == 1)
        #expect(table.generation == g0 + 2)
        #expect(table[0] === a && table[1] === b)
        table.remove(at: 0)
        #expect(table[0] == nil)
        #expect(table.generation == g0 + 3)
        let rowC = table.insert(c)
        #expect(rowC == 0)
        #expect(table[0] === c)
        #expect(table.rowCount == 2)
        #expect(table.reach(at: 0) == -1)
    }

    @Test("A removed row lets go of its element")
    func removeReleases() {
        var table = DormantTable<Item>()
        weak var gone: Item?
        do {
            let item = Item("x")
            gone = item
            _ = table.insert(item)
        }
        #expect(gone != nil)
        table.remove(at: 0)
        #expect(gone == nil)
    }

    @Test("A sleeping row is found within its reach of the listener, an awake one never")
    func rowsWithinReach() {
        var table = DormantTable<Item>()
        let items = (0..<4).map { Item("\($0)") }
        for item in items { _ = table.insert(item) }
        // Rows 0 and 1 sleep 10 m out, heard within 20 m (400 squared); row 2 within 5 m.
        table.sleep(row: 0, at: Audio3DPoint(x: 10, y: 0, z: 0), level: 1, reach: 400)
        table.sleep(row: 1, at: Audio3DPoint(x: 0, y: 0, z: -10), level: 1, reach: 400)
        table.sleep(row: 2, at: Audio3DPoint(x: 0, y: 10, z: 0), level: 0.1, reach: 25)
        // Row 3 is awake: reach -1, whatever its point.
        var found: [Int] = []
        table.rowsWithinReach(of: Self.origin, into: &found)
        #expect(found == [0, 1])
        #expect(table.point(at: 2) == Audio3DPoint(x: 0, y: 10, z: 0))
        #expect(table.level(at: 2) == 0.1)
        found = []
        table.rowsWithinReach(of: Audio3DPoint(x: 0, y: 8, z: 0), into: &found)
        #expect(found == [0, 1, 2])
        table.wake(row: 1)
        found = []
        table.rowsWithinReach(of: Self.origin, into: &found)
        #expect(found == [0])
        table.setReach(50, level: 0.5, at: 0)
        #expect(table.level(at: 0) == 0.5)
        found = []
        table.rowsWithinReach(of: Self.origin, into: &found)
        #expect(found.isEmpty)
        // A NaN listener (no scan yet) finds nothing.
        table.rowsWithinReach(of: Audio3DPoint(x: .nan, y: .nan, z: .nan), into: &found)
        #expect(found.isEmpty)
    }

    @Test("Moving a row says whether it came within its reach")
    func moveRow() {
        var table = DormantTable<Item>()
        let item = Item("a")
        let row = table.insert(item)
        table.sleep(row: row, at: Audio3DPoint(x: 100, y: 0, z: 0), level: 1, reach: 100)
        let far = table.move(row: row, to: Audio3DPoint(x: 50, y: 0, z: 0), listener: Self.origin)
        #expect(!far)
        let edge = table.move(row: row, to: Audio3DPoint(x: 6, y: 8, z: 0), listener: Self.origin)  // exactly 10 m
        #expect(edge)
        #expect(table.point(at: row) == Audio3DPoint(x: 6, y: 8, z: 0))
        table.wake(row: row)
        let awake = table.move(row: row, to: Self.origin, listener: Self.origin)
        #expect(!awake)
    }

    @Test(
        "A batch stores its points into its rows and notes the rows that came within reach",
        arguments: [8, 300, 301])
    func storeBatch(count: Int) {
        var table = DormantTable<Item>()
        let items = (0..<count).map { Item("\($0)") }
        let rows = items.map { Int32(table.insert($0)) }
        for r in rows { table.sleep(row: Int(r), at: Audio3DPoint(x: 1_000, y: 0, z: 0), level: 1, reach: 100) }
        #expect(!table.isCurrentBatch(items))
        table.rememberBatch(items, rows: rows)
        #expect(table.isCurrentBatch(items))
        #expect(!table.isCurrentBatch(items.map { $0 }))  // other storage, other batch
        // Indexed above 256 elements, by a base when the rows run in order.
        #expect(table.batchIndexOfRow.isEmpty == (count <= DormantTable<Item>.indexedBatchMinimum))
        if count > DormantTable<Item>.indexedBatchMinimum {
            #expect(table.batchBase == 0)
            #expect(table.batchIndexOfRow[5] == 5)
        }
        var positions = (0..<count).map { Audio3DPoint(x: Float(100 + $0), y: 0, z: 0) }
        positions[3] = Audio3DPoint(x: 5, y: 0, z: 0)  // within reach
        positions[count - 1] = Audio3DPoint(x: 0, y: 0, z: 9)  // within reach, the last row
        positions[4] = Audio3DPoint(x: .nan, y: 0, z: 0)  // left where it was
        var near: [Int] = []
        let cameNear = table.storeBatch(positions, listener: Self.origin, near: &near)
        #expect(cameNear)
        #expect(near.sorted() == [3, count - 1])
        #expect(table.point(at: 0) == Audio3DPoint(x: 100, y: 0, z: 0))
        #expect(table.point(at: 3) == Audio3DPoint(x: 5, y: 0, z: 0))
        #expect(table.point(at: 4) == Audio3DPoint(x: 1_000, y: 0, z: 0))
        #expect(table.point(at: count - 2) == Audio3DPoint(x: Float(100 + count - 2), y: 0, z: 0))
        near = []
        let far = positions.map { _ in Audio3DPoint(x: 50, y: 0, z: 0) }
        let farNear = table.storeBatch(far, listener: Self.origin, near: &near)
        #expect(!farNear)
        #expect(near.isEmpty)
    }

    @Test("A batch out of row order is indexed by row, and elements without a row are listed apart")
    func scatteredBatch() {
        var table = DormantTable<Item>()
        let items = (0..<300).map { Item("\($0)") }
        var rows = Array(items.map { Int32(table.insert($0)) }.reversed())
        rows[10] = -1
        let batch = Array(items.reversed())
        table.rememberBatch(batch, rows: rows)
        #expect(table.batchBase == -1)
        #expect(table.batchUnrowed == [10])
        #expect(table.batchIndexOfRow[299] == 0)
        #expect(table.batchIndexOfRow[0] == 299)
        #expect(table.batchIndexOfRow[289] == -1)
        table.sleep(row: 0, at: Audio3DPoint(x: 1_000, y: 0, z: 0), level: 1, reach: 100)
        var positions = [Audio3DPoint](repeating: Audio3DPoint(x: 500, y: 0, z: 0), count: 300)
        positions[299] = Audio3DPoint(x: 1, y: 1, z: 1)  // row 0
        var near: [Int] = []
        let cameNear = table.storeBatch(positions, listener: Self.origin, near: &near)
        #expect(cameNear)
        #expect(near == [0])
        #expect(table.point(at: 0) == Audio3DPoint(x: 1, y: 1, z: 1))
    }

    @Test("A row changing hands makes the batch stale and lets go of its elements")
    func generationMakesBatchStale() {
        var table = DormantTable<Item>()
        weak var first: Item?
        var items = (0..<4).map { Item("\($0)") }
        first = items[0]
        let rows = items.map { Int32(table.insert($0)) }
        table.rememberBatch(items, rows: rows)
        #expect(table.isCurrentBatch(items))
        _ = table.insert(Item("new"))
        #expect(!table.isCurrentBatch(items))
        table.rememberBatch(items, rows: rows)
        #expect(table.isCurrentBatch(items))
        table.remove(at: 0)
        #expect(!table.isCurrentBatch(items))
        items.removeAll()
        #expect(first == nil)
        table.forgetBatch()
        #expect(table.batchIndexOfRow.isEmpty && table.batchUnrowed.isEmpty)
    }
}
