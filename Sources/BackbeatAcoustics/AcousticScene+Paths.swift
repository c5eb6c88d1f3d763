#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension AcousticScene {
    /// How many rays a source with a radius casts (points of a sunflower
    /// spiral over its disc, facing the listener).
    static let raysPerSource = 16
    /// How many of the nearest edges are tried for a path around one edge,
    /// and (the nearest of them) for a path around two.
    static let singleEdgeCandidates = 8
    static let doubleEdgeCandidates = 4
    /// How far a bend point is moved off its edge, in metres, so the paths
    /// to it leave the surface instead of grazing it.
    static let bendOffset: Float = 0.01

    /// An amplitude below which a ray's gains stop mattering (-100 dB in
    /// every band): casting on past more walls would change nothing heard.
    static let inaudible: Float = 1e-5

    /// What the listener hears of a source: the rays between them, what they
    /// cross, and, when the direct path is blocked, the way around: through
    /// the open portals between their rooms when they are in two rooms, or
    /// around one or two edges of what blocks it; mixed by energy.
    ///
    /// - Parameters:
    ///   - listener: Where the listener is, in level coordinates (metres).
    ///   - source: Where the source is.
    ///   - radius: The source's radius in metres (0: a point, one ray); a
    ///     source half hidden behind an edge is half occluded.
    /// - Returns: An open path when a point is not finite or both coincide.
    public func path(from listener: SIMD3<Float>, to source: SIMD3<Float>, radius: Float = 0) -> AcousticPath {
        lock.withLock {
            commitIfNeededLocked()
            return pathLocked(
                from: listener, in: roomIndex(containing: listener), to: source, radius: radius)
        }
    }

    /// What the listener hears of each source, as ``path(from:to:radius:)``
    /// says, with the lock taken once and the listener's room found once: a
    /// frame's work.
    ///
    /// - Parameters:
    ///   - listener: Where the listener is.
    ///   - sources: Each source's position and radius.
    package func paths(
        from listener: SIMD3<Float>, to sources: [(position: SIMD3<Float>, radius: Float)]
    ) -> [AcousticPath] {
        lock.withLock {
            commitIfNeededLocked()
            let room = roomIndex(containing: listener)
            return sources.map { pathLocked(from: listener, in: room, to: $0.position, radius: $0.radius) }
        }
    }

    func commitIfNeededLocked() {
        guard needsCommit else { return }
        // A failed commit (out of memory) leaves the last committed scene: still a scene.
        try? rays.commit()
        needsCommit = false
    }

    private func pathLocked(
        from listener: SIMD3<Float>, in listenerRoom: Int?, to source: SIMD3<Float>, radius: Float
    ) -> AcousticPath {
        let toSource = source - listener
        let distance = length(toSource)
        let open = AcousticPath(
            gains: AcousticBands(1), direction: normalized(toSource), transmission: AcousticBands(1),
            visibleFraction: 1, diffraction: nil)
        guard distance.isFinite, distance > 1e-3, radius.isFinite || radius.isNaN else { return open }
        let points =
            radius > 0
            ? Self.discPoints(around: source, facing: listener, radius: radius, count: Self.raysPerSource)
            : [source]
        var energy = AcousticBands(0)
        var visible = 0
        var blockers: [Blocker] = []
        for point in points {
            let crossed = crossingLocked(from: listener, to: point)
            if crossed.solids.isEmpty { visible += 1 }
            energy = energy.combined(with: crossed.gains) { $0 + $1 * $1 }
            for hit in crossed.solids where !blockers.contains(hit) { blockers.append(hit) }
        }
        energy = energy.map { $0 / Float(points.count) }
        let visibleFraction = Float(visible) / Float(points.count)
        var path = AcousticPath(
            gains: energy.map { $0.squareRoot() }, direction: open.direction,
            transmission: energy.map { $0.squareRoot() }, visibleFraction: visibleFraction, diffraction: nil)
        guard visible < points.count else { return path }
        // Two rooms: the way is through their portals, never a search of edges.
        let sourceRoom = listenerRoom == nil ? nil : roomIndex(containing: source)
        let way: AcousticPath.DiffractedPath?
        if let listenerRoom, let sourceRoom, listenerRoom != sourceRoom {
            way = portalPathLocked(from: listener, in: listenerRoom, to: source, in: sourceRoom)
        } else {
            way = aroundLocked(from: listener, to: source, blockers: blockers)
        }
        guard let around = way else { return path }
        // The blocked share of the source is heard around, at the longer path's distance (1/r).
        let weight = (1 - visibleFraction) * (distance / around.length) * (distance / around.length)
        let aroundEnergy = around.gains.map { $0 * $0 * weight }
        let total = energy.combined(with: aroundEnergy, +)
        path.gains = total.map { min($0, 1).squareRoot() }
        path.diffraction = around
        let bendDirection = normalized(around.lastBend - listener)
        let mixed = open.direction * energy.mid + bendDirection * aroundEnergy.mid
        path.direction = mixed == .zero ? open.direction : normalized(mixed)
        return path
    }

    /// What the segment crosses: the product of the transmissions, and the
    /// geometries of the solid surfaces crossed (portals pass, by their
    /// openness). It stops once every band is below ``inaudible``.
    private func crossingLocked(from a: SIMD3<Float>, to b: SIMD3<Float>) -> (gains: AcousticBands, solids: [Blocker]) {
        var gains = AcousticBands(1)
        var solid: [Blocker] = []
        let margin: Float = 1e-4
        let d = b - a
        let segment = length(d)
        guard segment > 2 * margin else { return (gains, solid) }
        let direction = d / segment
        var near = margin
        var count = 0
        while count < 128,
            let hit = rays.nearestHit(from: a, direction: direction, near: near, far: segment - margin)
        {
            near = hit.distance + margin
            count += 1
            switch geometries[hit.geometry] {
            case .staticMesh(let index):
                gains = gains * level.staticMeshes[index].material(ofTriangle: hit.triangle).transmission
                solid.append(Blocker(geometry: hit.geometry, piece: staticEdges[index].pieceOfTriangle[hit.triangle]))
            case .portal(let index):
                gains = gains * portals[index].transmission
            case .movableMesh(let index):
                gains = gains * level.movableMeshes[index].material(ofTriangle: hit.triangle).transmission
                solid.append(Blocker(geometry: hit.geometry, piece: movableEdges[index].pieceOfTriangle[hit.triangle]))
            }
            if max(gains.low, gains.mid, gains.high) < Self.inaudible { break }
        }
        return (gains, solid)
    }

    /// Whether a bend point moved off its edge is in the open, not on another
    /// surface: an edge where a wall meets another piece of the same wall (a
    /// T-junction, a lintel over a door) is no edge to bend around, and the
    /// rays to a point on a surface, which leave their ends alone, would not
    /// see it. A short probe across the edge's surface finds it.
    private func isInTheOpenLocked(_ point: SIMD3<Float>, beside edge: DiffractionEdge) -> Bool {
        let probe = edge.across * (Self.bendOffset / 2)
        return rays.hits(from: point - probe, to: point + probe, margin: 1e-6).allSatisfy { hit in
            if case .portal = geometries[hit.geometry] { return true }
            return false
        }
    }

    /// The transmission of the portals a bend point lies in. A bend point at
    /// a door's jamb is moved into the doorway, onto the portal's plane,
    /// where the legs' ray casts (which leave their ends alone) cannot see it.
    private func portalGainsLocked(at point: SIMD3<Float>) -> AcousticBands {
        var gains = AcousticBands(1)
        for portal in portals where portal.corners.count == 4 {
            let c = portal.corners
            guard abs(dot(point - c[0], portal.normal)) < 2 * Self.bendOffset else { continue }
            // Inside the quad: inside one of its two triangles, after projecting onto its plane.
            let projected = point - portal.normal * dot(point - c[0], portal.normal)
            if Self.triangle(c[0], c[1], c[2], contains: projected)
                || Self.triangle(c[0], c[2], c[3], contains: projected)
            {
                gains = gains * portal.transmission
            }
        }
        return gains
    }

    /// Whether `p`, in the triangle's plane, is inside it (barycentric test).
    private static func triangle(
        _ a: SIMD3<Float>, _ b: SIMD3<Float>, _ c: SIMD3<Float>, contains p: SIMD3<Float>
    ) -> Bool {
        let v0 = c - a
        let v1 = b - a
        let v2 = p - a
        let d00 = dot(v0, v0)
        let d01 = dot(v0, v1)
        let d11 = dot(v1, v1)
        let d20 = dot(v2, v0)
        let d21 = dot(v2, v1)
        let det = d00 * d11 - d01 * d01
        guard det > 0 else { return false }
        let u = (d11 * d20 - d01 * d21) / det
        let v = (d00 * d21 - d01 * d20) / det
        return u >= -1e-4 && v >= -1e-4 && u + v <= 1 + 1e-4
    }

    /// A solid piece a ray crossed: a geometry and its connected piece.
    struct Blocker: Equatable {
        var geometry: Int
        var piece: Int32
    }

    /// An edge of a blocking piece, its bend point and the path's length around it.
    typealias RankedEdge = (edge: DiffractionEdge, bend: SIMD3<Float>, length: Float)

    /// The `count` edges of the pieces `blockers` (in level coordinates)
    /// with the shortest paths from `source` to `listener` around them,
    /// shortest first, ties in the pieces' order: what sorting them all and
    /// taking the first `count` gives, without the sort. A wall piece of a
    /// big level has thousands of edges and a path tries eight: a static
    /// piece's edges are looked at by groups (``EdgeChunks``), the nearest
    /// group first, and a group, or an edge, that cannot be nearer than the
    /// last kept is skipped without its bend points.
    ///
    /// - Parameters:
    ///   - blockers: The pieces the direct path crossed.
    ///   - source: The source.
    ///   - listener: The listener.
    ///   - count: How many edges to keep.
    private func nearestEdgesLocked(
        of blockers: [Blocker], from source: SIMD3<Float>, to listener: SIMD3<Float>, count: Int
    ) -> [RankedEdge] {
        var nearest: [RankedEdge] = []
        // Each kept edge's place in the pieces' order: ties go to the earlier, whatever order they were looked at in.
        var places: [Int] = []
        nearest.reserveCapacity(count + 1)
        places.reserveCapacity(count + 1)
        func isFull(beyond bound: Float) -> Bool {
            guard nearest.count == count, let last = nearest.last else { return false }
            return bound > last.length
        }
        func consider(_ edge: DiffractionEdge, place: Int) {
            // An edge no nearer than the last kept, even at best, is skipped without its bend point.
            if isFull(beyond: edge.shortestPathBound(from: source, to: listener)) { return }
            let bend = Diffraction.bendPoint(onEdge: edge.a, edge.b, from: source, to: listener)
            let pathLength = length(source - bend) + length(bend - listener)
            func before(_ at: Int) -> Bool {
                pathLength < nearest[at].length || (pathLength == nearest[at].length && place < places[at])
            }
            if nearest.count == count, !before(count - 1) { return }
            var at = nearest.count
            while at > 0, before(at - 1) { at -= 1 }
            nearest.insert((edge, bend, pathLength), at: at)
            places.insert(place, at: at)
            if nearest.count > count {
                nearest.removeLast()
                places.removeLast()
            }
        }
        var bounds: [Float] = []
        for (ordinal, blocker) in blockers.enumerated() {
            let base = ordinal << 32
            switch geometries[blocker.geometry] {
            case .staticMesh(let index):
                let edges = staticEdges[index].pieces[Int(blocker.piece)]
                let groups = staticEdges[index].chunks[Int(blocker.piece)]
                // A crate's or a short wall's few edges: one by one, as the groups would cost more.
                guard groups.chunks.count > 2 else {
                    for (e, edge) in edges.enumerated() { consider(edge, place: base + e) }
                    continue
                }
                bounds.removeAll(keepingCapacity: true)
                var first = 0
                for (c, chunk) in groups.chunks.enumerated() {
                    bounds.append(chunk.shortestPathBound(from: source, to: listener))
                    if bounds[c] < bounds[first] { first = c }
                }
                for step in 0..<groups.chunks.count {
                    // The nearest group first, then the others in order.
                    let c = step == 0 ? first : step <= first ? step - 1 : step
                    if isFull(beyond: bounds[c]) { continue }
                    for i in groups.chunks[c].range {
                        let e = Int(groups.order[i])
                        consider(edges[e], place: base + e)
                    }
                }
            case .portal:
                break
            case .movableMesh(let index):
                for (e, edge) in movableEdges[index].pieces[Int(blocker.piece)].enumerated() {
                    consider(edge.transformed(by: transforms[index]), place: base + e)
                }
            }
        }
        return nearest
    }

    /// The loudest path from `source` to `listener` around one edge, or
    /// failing that two, of the geometries that block the direct path,
    /// among the nearest edges; nil if every one tried is blocked too.
    private func aroundLocked(
        from listener: SIMD3<Float>, to source: SIMD3<Float>, blockers: [Blocker]
    ) -> AcousticPath.DiffractedPath? {
        let distance = length(source - listener)
        // The edges' bend points and path lengths, nearest first.
        let ranked = nearestEdgesLocked(
            of: blockers, from: source, to: listener,
            count: max(Self.singleEdgeCandidates, Self.doubleEdgeCandidates))
        guard !ranked.isEmpty else { return nil }
        var best: AcousticPath.DiffractedPath?
        func consider(_ candidate: AcousticPath.DiffractedPath) {
            let loudness = candidate.gains.mid / candidate.length
            if best.map({ loudness > $0.gains.mid / $0.length }) ?? true { best = candidate }
        }
        for (edge, bend, pathLength) in ranked.prefix(Self.singleEdgeCandidates) {
            let nudged = bend + edge.outward * Self.bendOffset
            guard isInTheOpenLocked(nudged, beside: edge) else { continue }
            let first = crossingLocked(from: source, to: nudged)
            guard first.solids.isEmpty else { continue }
            let second = crossingLocked(from: nudged, to: listener)
            guard second.solids.isEmpty else { continue }
            let loss = Diffraction.gains(detour: max(pathLength - distance, 0))
            let through = portalGainsLocked(at: nudged)
            consider(
                .init(length: pathLength, lastBend: bend, bends: 1, gains: loss * first.gains * second.gains * through))
        }
        if best != nil { return best }
        let nearest = ranked.prefix(Self.doubleEdgeCandidates).map(\.edge)
        for (i, e1) in nearest.enumerated() {
            for (j, e2) in nearest.enumerated() where i != j {
                // Alternate: each bend point the best for the other, a convex problem that settles fast.
                var x2 = Diffraction.bendPoint(onEdge: e2.a, e2.b, from: source, to: listener)
                var x1 = Diffraction.bendPoint(onEdge: e1.a, e1.b, from: source, to: x2)
                for _ in 0..<6 {
                    x2 = Diffraction.bendPoint(onEdge: e2.a, e2.b, from: x1, to: listener)
                    x1 = Diffraction.bendPoint(onEdge: e1.a, e1.b, from: source, to: x2)
                }
                let n1 = x1 + e1.outward * Self.bendOffset
                let n2 = x2 + e2.outward * Self.bendOffset
                guard isInTheOpenLocked(n1, beside: e1), isInTheOpenLocked(n2, beside: e2) else { continue }
                let legs = [crossingLocked(from: source, to: n1), crossingLocked(from: n1, to: n2)]
                guard legs.allSatisfy({ $0.solids.isEmpty }) else { continue }
                let last = crossingLocked(from: n2, to: listener)
                guard last.solids.isEmpty else { continue }
                let pathLength = length(source - x1) + length(x2 - x1) + length(listener - x2)
                // Maekawa for the whole detour: the usual estimate for a thick barrier.
                let loss = Diffraction.gains(detour: max(pathLength - distance, 0))
                consider(
                    .init(
                        length: pathLength, lastBend: x2, bends: 2,
                        gains: loss * legs[0].gains * legs[1].gains * last.gains * portalGainsLocked(at: n1)
                            * portalGainsLocked(at: n2)))
            }
        }
        return best
    }

    /// Points spread evenly over a disc of `radius` around `centre`, facing
    /// `viewer` (a sunflower spiral: no point on the centre line, so a
    /// straight edge across the centre hides about half).
    ///
    /// - Parameters:
    ///   - centre: The disc's centre.
    ///   - viewer: The point the disc faces.
    ///   - radius: The disc's radius.
    ///   - count: How many points.
    static func discPoints(
        around centre: SIMD3<Float>, facing viewer: SIMD3<Float>, radius: Float, count: Int
    ) -> [SIMD3<Float>] {
        let w = normalized(centre - viewer)
        let helper: SIMD3<Float> = abs(w.y) < 0.9 ? [0, 1, 0] : [1, 0, 0]
        let u = normalized(cross(w, helper))
        let v = cross(w, u)
        let golden = Float.pi * (3 - Float(5).squareRoot())
        return (0..<count).map { i in
            let r = radius * ((Float(i) + 0.5) / Float(count)).squareRoot()
            let angle = Float(i) * golden + 0.3
            return centre + u * (r * cos(angle)) + v * (r * sin(angle))
        }
    }
}
