extension AcousticScene {
    /// How far inside its sides a bend point stays on a portal, as a
    /// fraction of the side: the way goes through the opening, not along its jamb.
    static let portalInset: Float = 0.05

    /// The graph of portals for their openness now, worked out again only
    /// when an openness changed since. With the lock held.
    func portalGraphLocked() -> PortalGraph {
        if graphGeneration != opennessGeneration {
            portalGraph.update(portals: portals, portalRooms: portalRooms)
            graphGeneration = opennessGeneration
        }
        return portalGraph
    }

    /// The way from `source` in room `sourceRoom` to `listener` in room
    /// `listenerRoom` through open portals: bending at a point of each
    /// portal's opening, Maekawa's loss for the whole detour, times each
    /// portal's transmission for its openness. nil when no open portals
    /// join the rooms. With the lock held.
    ///
    /// - Parameters:
    ///   - listener: Where the listener is.
    ///   - listenerRoom: Its room.
    ///   - source: Where the source is.
    ///   - sourceRoom: Its room.
    func portalPathLocked(
        from listener: SIMD3<Float>, in listenerRoom: Int, to source: SIMD3<Float>, in sourceRoom: Int
    ) -> AcousticPath.DiffractedPath? {
        let graph = portalGraphLocked()
        guard let chain = graph.way(from: listener, in: listenerRoom, to: source, in: sourceRoom) else { return nil }
        // The bend points: the portals' centres, then each moved to where the
        // line between its neighbours crosses it (a few rounds settle it).
        var points = chain.map { graph.centres[$0] }
        for _ in 0..<3 {
            for (k, portal) in chain.enumerated() {
                let before = k == 0 ? listener : points[k - 1]
                let after = k + 1 == chain.count ? source : points[k + 1]
                points[k] = portals[portal].point(nearestSegmentFrom: before, to: after, inset: Self.portalInset)
            }
        }
        var pathLength = length(points[0] - listener) + length(source - points[points.count - 1])
        for k in 1..<points.count { pathLength += length(points[k] - points[k - 1]) }
        var gains = Diffraction.gains(detour: max(pathLength - length(source - listener), 0))
        for portal in chain { gains = gains * portals[portal].transmission }
        return AcousticPath.DiffractedPath(length: pathLength, lastBend: points[0], bends: chain.count, gains: gains)
    }

    /// The index of the room `point` is in, or nil; the rooms' bounding
    /// boxes are tried before their triangles.
    ///
    /// - Parameter point: A point in level coordinates.
    func roomIndex(containing point: SIMD3<Float>) -> Int? {
        guard point.x.isFinite, point.y.isFinite, point.z.isFinite else { return nil }
        for (index, bounds) in roomBounds.enumerated()
        where all(point .>= bounds.low) && all(point .<= bounds.high) && level.rooms[index].contains(point) {
            return index
        }
        return nil
    }
}

extension AcousticPortal {
    /// The point of the portal's opening nearest where the segment from `a`
    /// to `b` crosses its plane, kept `inset` (a fraction of each side)
    /// inside its sides. The quad is taken as the parallelogram of its first
    /// corner and the two sides from it.
    ///
    /// - Parameters:
    ///   - a: One end of the segment.
    ///   - b: The other end.
    ///   - inset: How far inside the sides the point stays, 0..<0.5.
    func point(nearestSegmentFrom a: SIMD3<Float>, to b: SIMD3<Float>, inset: Float) -> SIMD3<Float> {
        guard corners.count == 4 else { return centre }
        let origin = corners[0]
        let u = corners[1] - origin
        let v = corners[3] - origin
        let n = normal
        let d = b - a
        let denominator = dot(d, n)
        let t = abs(denominator) > 1e-9 ? min(max(dot(origin - a, n) / denominator, 0), 1) : 0.5
        let crossing = a + d * t
        let w = crossing - origin
        let uu = dot(u, u)
        let vv = dot(v, v)
        guard uu > 0, vv > 0 else { return centre }
        let s = min(max(dot(w, u) / uu, inset), 1 - inset)
        let r = min(max(dot(w, v) / vv, inset), 1 - inset)
        return origin + u * s + v * r
    }
}
