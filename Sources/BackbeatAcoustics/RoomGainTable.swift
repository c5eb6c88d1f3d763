/// What reaches a listener in one room from a source in another, through
/// the portals alone, for every pair of rooms: the cheap estimate a voice's
/// audibility uses (``AcousticScene/audibilityEstimates(from:to:)``), where
/// its heard sound uses rays.
///
/// Rooms are the nodes; two rooms sharing portals are joined by the most
/// transmitting one (an open door passes everything, a closed one its
/// material's transmission); a pair's gain is the product along the most
/// transmitting chain of rooms (Floyd–Warshall on the mid band: 20 rooms are
/// 8,000 steps), or a wall's for rooms no chain joins. Worked out again only
/// when an openness changes.
struct RoomGainTable {
    /// The gain between two rooms no portals join: a wall's (the generic
    /// material's transmission), the most an estimate that casts no ray can say.
    static let unjoined = AcousticMaterial.generic.transmission

    /// The openness generation it was worked out for.
    let generation: Int
    /// `gains[i][j]`: from a source in room j to a listener in room i (the same both ways).
    let gains: [[AcousticBands]]
    /// The box around every room: a point outside it is in none, at the cost of one test.
    let low: SIMD3<Float>
    let high: SIMD3<Float>

    /// The table for `portals` now.
    ///
    /// - Parameters:
    ///   - portals: The level's portals, with their openness now.
    ///   - portalRooms: The rooms beside each portal.
    ///   - roomBounds: Each room's bounding box.
    ///   - generation: The openness generation the portals are at.
    init(
        portals: [AcousticPortal], portalRooms: [[Int]], roomBounds: [(low: SIMD3<Float>, high: SIMD3<Float>)],
        generation: Int
    ) {
        let n = roomBounds.count
        let none = AcousticBands(0)
        var gains = Array(repeating: Array(repeating: none, count: n), count: n)
        for i in 0..<n { gains[i][i] = AcousticBands(1) }
        for (portal, rooms) in zip(portals, portalRooms) where rooms.count == 2 {
            let (a, b) = (rooms[0], rooms[1])
            let t = portal.transmission
            if t.mid > gains[a][b].mid || gains[a][b].mid == 0 {
                gains[a][b] = t
                gains[b][a] = t
            }
        }
        for k in 0..<n {
            for i in 0..<n where i != k {
                for j in 0..<n where j != k && j != i {
                    let through = gains[i][k] * gains[k][j]
                    if through.mid > gains[i][j].mid { gains[i][j] = through }
                }
            }
        }
        // Rooms no chain of portals joins: a wall's.
        for i in 0..<n {
            for j in 0..<n where gains[i][j].mid == 0 && gains[i][j].low == 0 { gains[i][j] = Self.unjoined }
        }
        self.gains = gains
        self.generation = generation
        low = roomBounds.reduce(SIMD3<Float>(repeating: .infinity)) { pointwiseMin($0, $1.low) }
        high = roomBounds.reduce(SIMD3<Float>(repeating: -.infinity)) { pointwiseMax($0, $1.high) }
    }
}
