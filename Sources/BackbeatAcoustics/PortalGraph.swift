/// The rooms and portals of a level as a graph, for the way sound takes from
/// one room to another: portals are the nodes, two portals of one room are
/// joined by the straight line between their centres, and a portal that is
/// not fully open costs extra length (see ``penalty(gain:)``).
///
/// All pairs are worked out at once (Floyd–Warshall: 40 portals are 64,000
/// steps, microseconds) when the scene is made and again only when a
/// portal's openness changes; a path between a listener and a source in two
/// rooms then tries the few portals of each room against the table, so a
/// frame's voices cost a lookup each, however the listener walks.
struct PortalGraph {
    /// A portal less open than this is closed: no way through (what it
    /// transmits is heard on the direct path, whose rays cross it).
    static let closedBelow: Float = 0.01
    /// The length a portal passing amplitude `g` adds: a room's size scaled
    /// by how much quieter it is (0 when fully open).
    static let penaltyScale: Float = 5

    /// The portals of each room.
    let portalsOfRoom: [[Int]]
    /// Each portal's centre (portals do not move).
    let centres: [SIMD3<Float>]
    /// The cheapest cost from portal i to portal j (both included), or infinity.
    private(set) var cost: [[Float]]
    /// The portal after i on the cheapest way from i to j (j when they are neighbours).
    private(set) var next: [[Int]]

    /// The graph of `portals`, each between the rooms `portalRooms` gives.
    ///
    /// - Parameters:
    ///   - portals: The level's portals, with their openness now.
    ///   - portalRooms: The rooms beside each portal.
    ///   - roomCount: How many rooms the level has.
    init(portals: [AcousticPortal], portalRooms: [[Int]], roomCount: Int) {
        var ofRoom = Array(repeating: [Int](), count: roomCount)
        for (portal, rooms) in portalRooms.enumerated() {
            for room in rooms { ofRoom[room].append(portal) }
        }
        portalsOfRoom = ofRoom
        centres = portals.map(\.centre)
        cost = []
        next = []
        update(portals: portals, portalRooms: portalRooms)
    }

    /// The extra length of a portal passing amplitude `gain` in the mid band.
    ///
    /// - Parameter gain: The portal's mid-band amplitude gain, 0...1.
    static func penalty(gain: Float) -> Float {
        gain > 0 ? (1 / gain - 1) * penaltyScale : .infinity
    }

    /// Works the table out again for the portals' openness now.
    ///
    /// - Parameters:
    ///   - portals: The level's portals.
    ///   - portalRooms: The rooms beside each portal.
    mutating func update(portals: [AcousticPortal], portalRooms: [[Int]]) {
        let n = portals.count
        let open = portals.map { $0.openness >= Self.closedBelow }
        let penalties = portals.map { Self.penalty(gain: $0.transmission.mid) }
        var cost = Array(repeating: Array(repeating: Float.infinity, count: n), count: n)
        var next = Array(repeating: Array(repeating: -1, count: n), count: n)
        for i in 0..<n where open[i] {
            cost[i][i] = penalties[i]
            next[i][i] = i
        }
        for room in portalsOfRoom {
            for i in room where open[i] {
                for j in room where j != i && open[j] {
                    let c = penalties[i] + length(portals[i].centre - portals[j].centre) + penalties[j]
                    if c < cost[i][j] {
                        cost[i][j] = c
                        next[i][j] = j
                    }
                }
            }
        }
        for k in 0..<n where open[k] {
            for i in 0..<n where cost[i][k] < .infinity {
                for j in 0..<n {
                    // k's penalty is in both halves: count it once.
                    let c = cost[i][k] + cost[k][j] - penalties[k]
                    if c < cost[i][j] {
                        cost[i][j] = c
                        next[i][j] = next[i][k]
                    }
                }
            }
        }
        self.cost = cost
        self.next = next
    }

    /// The portals from `first` to `last` on the cheapest way, in order.
    ///
    /// - Parameters:
    ///   - first: The portal in the listener's room.
    ///   - last: The portal in the source's room.
    func chain(from first: Int, to last: Int) -> [Int] {
        var chain = [first]
        var at = first
        while at != last, chain.count <= next.count {
            at = next[at][last]
            guard at >= 0 else { return [] }
            chain.append(at)
        }
        return chain
    }

    /// The cheapest way from a listener in room `from` to a source in room
    /// `to`: the portals in order, nearest the listener first; nil when the
    /// rooms are not joined by open portals.
    ///
    /// - Parameters:
    ///   - listener: Where the listener is.
    ///   - from: The listener's room.
    ///   - source: Where the source is.
    ///   - to: The source's room.
    func way(from listener: SIMD3<Float>, in from: Int, to source: SIMD3<Float>, in to: Int) -> [Int]? {
        var best: (cost: Float, first: Int, last: Int)?
        for p in portalsOfRoom[from] {
            let toP = length(centres[p] - listener)
            for q in portalsOfRoom[to] where cost[p][q] < .infinity {
                let c = toP + cost[p][q] + length(source - centres[q])
                if c < best?.cost ?? .infinity { best = (c, p, q) }
            }
        }
        guard let best else { return nil }
        let chain = chain(from: best.first, to: best.last)
        return chain.isEmpty ? nil : chain
    }
}
