extension AcousticScene {
    /// The room-to-room table for the portals' openness now, worked out
    /// again only when an openness changed since. With the lock held.
    func roomGainsLocked() -> RoomGainTable {
        if let table = roomGainTable, table.generation == opennessGeneration { return table }
        let table = RoomGainTable(
            portals: portals, portalRooms: portalRooms, roomBounds: roomBounds, generation: opennessGeneration)
        roomGainTable = table
        return table
    }

    /// A cheap estimate of what reaches the listener from each source, with
    /// no ray: 1 in the listener's room (or when either is in no room), else
    /// the portals' transmission on the most transmitting way between the
    /// two rooms (``RoomGainTable``). What a dormant or virtual voice's
    /// audibility uses; a voice heard gets ``paths(from:to:)``.
    ///
    /// - Parameters:
    ///   - listener: Where the listener is.
    ///   - sources: Where each source is.
    /// - Returns: Each source's band gains.
    package func audibilityEstimates(from listener: SIMD3<Float>, to sources: [SIMD3<Float>]) -> [AcousticBands] {
        lock.withLock {
            let open = AcousticBands(1)
            guard let heard = roomIndex(containing: listener), !level.rooms.isEmpty else {
                return Array(repeating: open, count: sources.count)
            }
            let table = roomGainsLocked()
            return sources.map { source in
                // Most sources of a big world are outside every room's box: one test.
                guard all(source .>= table.low) && all(source .<= table.high),
                    let room = roomIndex(containing: source)
                else { return open }
                return table.gains[heard][room]
            }
        }
    }
}
