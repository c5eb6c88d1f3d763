#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension AcousticScene {
    /// How the reverb of room `room` reaches a listener in another room:
    /// through the open portals between (the way ``portalPathLocked`` takes),
    /// from the first portal's direction.
    ///
    /// Like OpenAL Soft's `almultireverb` example, the other room takes the
    /// share of the listener's surroundings the opening covers: a portal of
    /// area A seen from distance d spans an angle θ = 2·atan(√(A/π) / d), and
    /// the room's reverb gets θ/2π of the energy, panned toward the portal
    /// with a focus of 1 − θ/2π (a point far away, half the sphere in the
    /// doorway). Through a chain of portals, each further portal passes on
    /// the share the portal before it (nearer the listener) covers seen from
    /// it, at the distance between their centres: a room two doors away is
    /// quieter than the room between by that share. The portals'
    /// transmission for their openness multiplies it.
    ///
    /// - Parameters:
    ///   - room: The room heard.
    ///   - listener: Where the listener is.
    ///   - forward: Where the listener faces (unit length).
    ///   - up: The listener's up (unit length).
    /// - Returns: nil when the listener is in that room, in no room, or no open portals join the two.
    package func heardReverb(
        ofRoom room: String, listener: SIMD3<Float>, forward: SIMD3<Float>, up: SIMD3<Float>
    ) -> (gain: Float, pan: SIMD3<Float>)? {
        guard let target = level.rooms.firstIndex(where: { $0.name == room }),
            let from = roomIndex(containing: listener), from != target
        else { return nil }
        return lock.withLock {
            let graph = portalGraphLocked()
            var best: (cost: Float, first: Int, last: Int)?
            for p in graph.portalsOfRoom[from] {
                let toP = length(graph.centres[p] - listener)
                for q in graph.portalsOfRoom[target] where graph.cost[p][q] < .infinity {
                    let c = toP + graph.cost[p][q]
                    if c < best?.cost ?? .infinity { best = (c, p, q) }
                }
            }
            guard let best else { return nil }
            let chain = graph.chain(from: best.first, to: best.last)
            guard let first = chain.first else { return nil }
            let toPortal = portals[first].centre - listener
            let distance = max(length(toPortal), 1e-3)
            let share = Self.share(of: portals[first], from: distance)
            // Each further portal passes on the share the one before it
            // covers, seen from it: what a room two doors away sends
            // through the room between.
            var energy = share
            for (nearer, farther) in zip(chain, chain.dropFirst()) {
                let d = max(length(portals[farther].centre - portals[nearer].centre), 1e-3)
                energy *= Self.share(of: portals[nearer], from: d)
            }
            var gain = energy.squareRoot()
            for portal in chain { gain *= portals[portal].transmission.mid }
            // The pan in the listener's frame, left-handed as EAX takes it: +X right, +Y up, +Z ahead.
            let direction = toPortal / distance
            let right = normalized(cross(forward, up))
            let local = SIMD3<Float>(dot(direction, right), dot(direction, up), dot(direction, forward))
            return (min(gain, 1), local * (1 - share))
        }
    }

    /// The share of the sphere (θ/2π, θ = 2·atan(√(A/π)/d)) a portal of
    /// area A covers seen from `distance` away.
    ///
    /// - Parameters:
    ///   - portal: The portal.
    ///   - distance: How far away it is seen from, metres (> 0).
    static func share(of portal: AcousticPortal, from distance: Float) -> Float {
        let radius = (portal.area / Float.pi).squareRoot()
        return 2 * atan2(radius, distance) / (2 * Float.pi)
    }
}
