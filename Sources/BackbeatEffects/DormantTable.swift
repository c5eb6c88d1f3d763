import BackbeatEngine

/// The voice pool's table of live voices, one row each, as flat arrays: a
/// point, the squared distance from the listener within which the row's
/// voice would be heard (its reach), and the level that reach was worked out
/// for. A dormant voice (virtual, out of earshot) lives here alone, off the
/// update step's list, so the audibility pass and a batch move read a few
/// floats a row instead of visiting it. A row that is not asleep (or is
/// free) has a reach of -1, which no squared distance is within.
///
/// The table also keeps the last batch of elements a game moved together,
/// with each one's row, so that moving the same batch again stores its
/// points straight into their rows. ``generation`` rises whenever a row
/// changes hands, which makes a remembered batch stale.
///
/// A value type with no engine in it: the pool owns one and reads and
/// writes it under the engine lock.
struct DormantTable<Element: AnyObject> {
    /// Each row's element; nil for a free row.
    private(set) var elements: [Element?] = []
    private var xs: [Float] = [], ys: [Float] = [], zs: [Float] = []
    private var reaches: [Float] = []
    private var levels: [Float] = []
    /// Whether each row sleeps (``sleep(row:at:level:reach:)`` until ``wake(row:)``).
    private var asleep: [Bool] = []
    private var freeRows: [Int] = []
    /// Rises whenever a row changes hands (an element is inserted or removed).
    private(set) var generation: UInt64 = 0

    /// The last batch given to ``rememberBatch(_:rows:)``, held so its
    /// storage (which identifies it) stays alive while it is current, and its rows.
    private var batchElements: [Element] = []
    private var batchRows: [Int32] = []
    private var batchGeneration: UInt64 = .max
    /// For a batch larger than ``indexedBatchMinimum``: each row's place in
    /// the batch (-1: not in it), and the batch's places of elements without a row.
    private(set) var batchIndexOfRow: [Int32] = []
    private(set) var batchUnrowed: [Int32] = []
    /// The batch's first row when its rows run in order from it, else -1.
    private(set) var batchBase = -1

    /// Batches up to this size are moved element by element: no table-sized
    /// index for a few elements.
    static var indexedBatchMinimum: Int { 256 }

    init() {}

    /// Rows in the table, free ones included.
    var rowCount: Int { elements.count }

    /// The element in `row`, or nil for a free row.
    subscript(row: Int) -> Element? { elements[row] }

    // MARK: Rows

    /// Gives `element` a row, a free one if there is one, and returns it.
    /// The row is awake (reach -1).
    mutating func insert(_ element: Element) -> Int {
        let row: Int
        if let free = freeRows.popLast() {
            row = free
            elements[row] = element
            asleep[row] = false
        } else {
            row = elements.count
            elements.append(element)
            xs.append(0)
            ys.append(0)
            zs.append(0)
            reaches.append(-1)
            levels.append(0)
            asleep.append(false)
        }
        generation &+= 1
        return row
    }

    /// Frees `row` for the next insert. A remembered batch is stale from
    /// here (see ``generation``), so the table lets go of its elements too:
    /// it keeps no element alive beyond its row.
    mutating func remove(at row: Int) {
        reaches[row] = -1
        asleep[row] = false
        elements[row] = nil
        freeRows.append(row)
        generation &+= 1
        if !batchElements.isEmpty { batchElements = [] }
    }

    /// The point stored in `row`.
    func point(at row: Int) -> Audio3DPoint { Audio3DPoint(x: xs[row], y: ys[row], z: zs[row]) }

    /// The level `row`'s reach was worked out for.
    func level(at row: Int) -> Float { levels[row] }

    /// The squared distance within which `row` is heard (-1: awake, free or nowhere).
    func reach(at row: Int) -> Float { reaches[row] }

    /// Stores `point` in `row`; returns whether it is within the row's reach
    /// of a listener at `listener` (never for an awake row, or a NaN listener).
    mutating func move(row: Int, to point: Audio3DPoint, listener l: Audio3DPoint) -> Bool {
        xs[row] = point.x
        ys[row] = point.y
        zs[row] = point.z
        let tx = l.x - point.x
        let ty = l.y - point.y
        let tz = l.z - point.z
        return tx * tx + ty * ty + tz * tz <= reaches[row]
    }

    /// Puts `row` to sleep at `point`: heard within the squared distance
    /// `reach`, worked out for `level`.
    mutating func sleep(row: Int, at point: Audio3DPoint, level: Float, reach: Float) {
        xs[row] = point.x
        ys[row] = point.y
        zs[row] = point.z
        levels[row] = level
        reaches[row] = reach
        asleep[row] = true
    }

    /// Sets a sleeping row's reach again, worked out for a new `level`.
    mutating func setReach(_ reach: Float, level: Float, at row: Int) {
        levels[row] = level
        reaches[row] = reach
    }

    /// Wakes `row`: no squared distance is within its reach any more.
    mutating func wake(row: Int) {
        reaches[row] = -1
        asleep[row] = false
    }

    /// Works out every sleeping row's level times the gain of `curve` at
    /// its distance from a listener at `l` (no attenuation within the
    /// reference distance, nor for a NaN distance), into `scratch`, by row,
    /// reading only the table's flat arrays: a monitor's snapshot ranks
    /// thousands so (``offerSleepingRows(gains:from:below:to:)`` then offers them).
    ///
    /// Every row's gain is worked out without a branch (a select where the
    /// curve starts, the model chosen once), which the compiler turns into
    /// vector code; a row that is awake or free gets a gain of no meaning.
    /// The gains are those of
    /// ``AudioDistanceAttenuationParameters/gain(atDistance:)``, operation for operation.
    ///
    /// - Parameters:
    ///   - l: the listener's position.
    ///   - curve: the listener's distance curve.
    ///   - scratch: a buffer kept between calls, so that no call allocates once it is big enough.
    func sleepingGains(from l: Audio3DPoint, curve: AudioDistanceAttenuationParameters, into scratch: inout [Float]) {
        let count = asleep.count
        if scratch.count < count { scratch = [Float](repeating: 0, count: count) }
        let r = curve.referenceDistance
        let reference = r * r
        let farthest = curve.maximumDistance
        let f = curve.rolloffFactor
        let model = f > 0 ? curve.distanceAttenuationModel : nil
        xs.withUnsafeBufferPointer { xs in
            ys.withUnsafeBufferPointer { ys in
                zs.withUnsafeBufferPointer { zs in
                    levels.withUnsafeBufferPointer { levels in
                        scratch.withUnsafeMutableBufferPointer { gains in
                            func squared(_ row: Int) -> Float {
                                let tx = l.x - xs[row]
                                let ty = l.y - ys[row]
                                let tz = l.z - zs[row]
                                return tx * tx + ty * ty + tz * tz
                            }
                            switch model {
                            case nil:
                                for row in 0..<count { gains[row] = levels[row] }
                            case .inverse:
                                for row in 0..<count {
                                    let s = squared(row)
                                    let d = min(max(s.squareRoot(), r), farthest)
                                    let gain = levels[row] * (r / (r + f * (d - r)))
                                    gains[row] = s > reference ? gain : levels[row]
                                }
                            case .linear:
                                let span = farthest - r
                                for row in 0..<count {
                                    let s = squared(row)
                                    let d = min(max(s.squareRoot(), r), farthest)
                                    let gain = levels[row] * (farthest > r ? max(0, 1 - f * (d - r) / span) : 1)
                                    gains[row] = s > reference ? gain : levels[row]
                                }
                            case .exponential:
                                // pow does not vectorize: the sleeping rows alone, as before.
                                for row in 0..<count where asleep[row] {
                                    let s = squared(row)
                                    gains[row] =
                                        s > reference
                                        ? levels[row] * curve.gain(atDistance: s.squareRoot()) : levels[row]
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Offers `selection` each sleeping row whose gain in `gains` (from
    /// ``sleepingGains(from:curve:into:)``) is at least `floor`, or, when
    /// `below`, each whose gain is not. A floor a little under the last
    /// snapshot's quietest listed voice turns nearly every row away with a
    /// compare the branch predictor gets right, before it is made a key.
    ///
    /// - Parameters:
    ///   - gains: every row's gain, by row.
    ///   - floor: the gain that parts the rows offered from the others.
    ///   - below: offer the rows under `floor` (and any NaN) instead.
    ///   - selection: the loudest rows so far.
    /// - Returns: how many rows sleep, and how many of them were offered.
    @discardableResult
    func offerSleepingRows(
        gains: [Float], from floor: Float, below: Bool = false, to selection: inout TelemetrySelection
    ) -> (sleeping: Int, offered: Int) {
        var sleeping = 0
        var offered = 0
        asleep.withUnsafeBufferPointer { asleep in
            gains.withUnsafeBufferPointer { gains in
                for row in 0..<min(asleep.count, gains.count) where asleep[row] {
                    sleeping += 1
                    let gain = gains[row]
                    guard (gain >= floor) != below else { continue }
                    offered += 1
                    selection.offer(VoicePool.TelemetryRow(gain: gain, row: Int32(truncatingIfNeeded: row)))
                }
            }
        }
        return (sleeping, offered)
    }

    /// Appends to `found` every row within its reach of a listener at `l`:
    /// one look at the flat arrays, a squared distance and a compare per row.
    func rowsWithinReach(of l: Audio3DPoint, into found: inout [Int]) {
        xs.withUnsafeBufferPointer { xs in
            ys.withUnsafeBufferPointer { ys in
                zs.withUnsafeBufferPointer { zs in
                    reaches.withUnsafeBufferPointer { reach in
                        for s in 0..<reach.count {
                            let tx = l.x - xs[s]
                            let ty = l.y - ys[s]
                            let tz = l.z - zs[s]
                            if tx * tx + ty * ty + tz * tz <= reach[s] { found.append(s) }
                        }
                    }
                }
            }
        }
    }

    // MARK: Batches

    /// Whether `elements` is the batch remembered last (the same storage
    /// means the same elements), and no row changed hands since.
    func isCurrentBatch(_ elements: [Element]) -> Bool {
        guard batchGeneration == generation, elements.count == batchElements.count else { return false }
        let a = elements.withUnsafeBufferPointer { $0.baseAddress }
        let b = batchElements.withUnsafeBufferPointer { $0.baseAddress }
        return a != nil && a == b
    }

    /// Keeps `elements` as the batch, with `rows[i]` the row of
    /// `elements[i]` (-1: none) and, for a batch larger than
    /// ``indexedBatchMinimum``, each row's place in the batch (its last, when
    /// an element comes twice) and the places of the elements without one.
    mutating func rememberBatch(_ elements: [Element], rows: [Int32]) {
        batchElements = elements
        batchRows = rows
        batchGeneration = generation
        batchUnrowed = []
        batchIndexOfRow = []
        batchBase = -1
        guard elements.count > Self.indexedBatchMinimum else { return }
        batchIndexOfRow = Array(repeating: -1, count: self.elements.count)
        var contiguous = !elements.isEmpty
        let base = rows.first ?? 0
        for (i, s) in rows.enumerated() {
            if s >= 0 { batchIndexOfRow[Int(s)] = Int32(i) } else { batchUnrowed.append(Int32(i)) }
            if s != base &+ Int32(truncatingIfNeeded: i) { contiguous = false }
        }
        batchBase = contiguous ? Int(base) : -1
    }

    /// Forgets the remembered batch.
    mutating func forgetBatch() {
        batchElements = []
        batchRows = []
        batchIndexOfRow = []
        batchUnrowed = []
        batchBase = -1
        batchGeneration = .max
    }

    /// Stores the remembered batch's finite points (`positions[i]` for the
    /// batch's element `i`) into their rows, and appends to `near` the rows
    /// that came within their reach of a listener at `l`; returns whether any did.
    mutating func storeBatch(_ positions: [Audio3DPoint], listener l: Audio3DPoint, near: inout [Int]) -> Bool {
        let rows = batchRows
        let reach = reaches
        var xs = self.xs
        var ys = self.ys
        var zs = self.zs
        let before = near.count
        // Taken out of the table while written (no copy: each has one owner then).
        self.xs = []
        self.ys = []
        self.zs = []
        defer {
            self.xs = xs
            self.ys = ys
            self.zs = zs
        }
        let base = batchBase
        positions.withUnsafeBufferPointer { positions in
            rows.withUnsafeBufferPointer { slots in
                reach.withUnsafeBufferPointer { reach in
                    xs.withUnsafeMutableBufferPointer { xs in
                        ys.withUnsafeMutableBufferPointer { ys in
                            zs.withUnsafeMutableBufferPointer { zs in
                                if base >= 0 {
                                    Self.storeRows(
                                        positions, base: base, xs, ys, zs, reach: reach, listener: l, near: &near)
                                } else {
                                    for i in 0..<positions.count {
                                        let s = Int(slots[i])
                                        let p = positions[i]
                                        guard s >= 0, p.isFinite else { continue }
                                        xs[s] = p.x
                                        ys[s] = p.y
                                        zs[s] = p.z
                                        // NaN (no scan yet) compares false: the pass scans then.
                                        let tx = l.x - p.x
                                        let ty = l.y - p.y
                                        let tz = l.z - p.z
                                        if tx * tx + ty * ty + tz * tz <= reach[s] { near.append(s) }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return near.count > before
    }

    /// The batch whose rows are `base..<base + positions.count`, in order (a
    /// game's emitters started together): four rows at a time in SIMD lanes,
    /// blocks of 64 rows stored and compared with no branch, and only a block
    /// where a row came within reach looked at again for which.
    private static func storeRows(
        _ positions: UnsafeBufferPointer<Audio3DPoint>, base: Int,
        _ xs: UnsafeMutableBufferPointer<Float>, _ ys: UnsafeMutableBufferPointer<Float>,
        _ zs: UnsafeMutableBufferPointer<Float>, reach: UnsafeBufferPointer<Float>,
        listener l: Audio3DPoint, near: inout [Int]
    ) {
        let count = positions.count
        guard count > 0, let p = positions.baseAddress, let x = xs.baseAddress, let y = ys.baseAddress,
            let z = zs.baseAddress, let r = reach.baseAddress
        else { return }
        precondition(MemoryLayout<Audio3DPoint>.stride == 12 && base + count <= reach.count)
        let floats = UnsafeRawPointer(p)
        let lx = SIMD4<Float>(repeating: l.x)
        let ly = SIMD4<Float>(repeating: l.y)
        let lz = SIMD4<Float>(repeating: l.z)
        @inline(__always) func load(_ q: UnsafeMutablePointer<Float>, _ s: Int) -> SIMD4<Float> {
            UnsafeRawPointer(q + s).loadUnaligned(as: SIMD4<Float>.self)
        }
        @inline(__always) func store(_ v: SIMD4<Float>, _ q: UnsafeMutablePointer<Float>, _ s: Int) {
            UnsafeMutableRawPointer(q + s).storeBytes(of: v, as: SIMD4<Float>.self)
        }
        let whole = count & ~3
        var start = 0
        while start < whole {
            let end = min(whole, start + 64)
            var hits = SIMD4<Int32>(repeating: 0)
            var i = start
            while i < end {
                // Four points, x y z x | y z x y | z x y z, into a lane each.
                let a = floats.loadUnaligned(fromByteOffset: i * 12, as: SIMD4<Float>.self)
                let b = floats.loadUnaligned(fromByteOffset: i * 12 + 16, as: SIMD4<Float>.self)
                let c = floats.loadUnaligned(fromByteOffset: i * 12 + 32, as: SIMD4<Float>.self)
                var px = SIMD4<Float>(a[0], a[3], b[2], c[1])
                var py = SIMD4<Float>(a[1], b[0], b[3], c[2])
                var pz = SIMD4<Float>(a[2], b[1], c[0], c[3])
                // A point with a NaN or infinite coordinate leaves its row as it was.
                // (x - x is 0 for a finite x, NaN for an infinite or NaN one.)
                let bad = .!(((px - px) + (py - py) + (pz - pz)) .== .zero)
                let s = base &+ i
                if any(bad) {
                    // Rare: only then are the rows read (a store alone does not wait for them).
                    px.replace(with: load(x, s), where: bad)
                    py.replace(with: load(y, s), where: bad)
                    pz.replace(with: load(z, s), where: bad)
                }
                store(px, x, s)
                store(py, y, s)
                store(pz, z, s)
                let tx = lx - px
                let ty = ly - py
                let tz = lz - pz
                let squared = tx * tx + ty * ty + tz * tz
                let within = squared .<= UnsafeRawPointer(r + s).loadUnaligned(as: SIMD4<Float>.self)
                hits.replace(with: 1, where: within)
                i += 4
            }
            if hits != .zero { findNear(start..<end) }
            start = end
        }
        // The last rows, one by one.
        for i in whole..<count {
            let s = base &+ i
            let q = p[i]
            if q.isFinite {
                x[s] = q.x
                y[s] = q.y
                z[s] = q.z
            }
        }
        if whole < count { findNear(whole..<count) }

        func findNear(_ range: Range<Int>) {
            for i in range {
                let s = base &+ i
                let tx = l.x - x[s]
                let ty = l.y - y[s]
                let tz = l.z - z[s]
                if tx * tx + ty * ty + tz * tz <= r[s] { near.append(s) }
            }
        }
    }
}
