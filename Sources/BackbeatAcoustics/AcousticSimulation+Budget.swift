extension AcousticSimulation {
    /// A path is reused until the voice or the listener moves more than
    /// this fraction of the distance between them (when that is more than
    /// ``movementThreshold``): a fiftieth, a little over a degree seen from the other end.
    public static let relativeMovementThreshold: Float = 0.02

    /// How far, in metres, a voice or the listener moves before the voice's
    /// path is worked out again (default 0.1; 0: at every move), or a
    /// fiftieth of the distance between them when that is more
    /// (``relativeMovementThreshold``). A change of geometry (a door, a
    /// movable mesh) always works every path out again. The same idea as
    /// Wwise Spatial Audio's movement threshold: a path hardly changes over
    /// a few centimetres, and rays are the cost.
    public var movementThreshold: Float {
        get { lock.withLock { movementThresholdValue } }
        set { lock.withLock { movementThresholdValue = newValue.isFinite ? max(0, newValue) : 0.1 } }
    }

    /// The most paths one ``update()`` works out by default, unless the
    /// geometry changed: about 200 µs of rays in the generated
    /// 100,000-triangle level.
    public static let defaultMaximumPathsPerUpdate = 8

    /// The most paths one ``update()`` works out for voices heard for the
    /// first time or that moved (they or the listener, past
    /// ``movementThreshold``) (default ``defaultMaximumPathsPerUpdate``; at
    /// least 1). When more wait, voices with no path yet go first, then the
    /// stalest (the longest since their path was worked out), the louder
    /// first among as stale. The others keep what they have until a later
    /// update: their last path, which their filters glide to, or, for a
    /// voice new to the rays, the estimate from its room and the portals
    /// between that it has had since it was virtual. So the work a frame
    /// does stays bounded however many voices come and move at once (Steam
    /// Audio and Wwise Spatial Audio spread their paths over frames the same
    /// way). After a change of geometry (a door's openness, a movable mesh's
    /// transform) or of a voice's radius, every such path is worked out in
    /// the same update whatever the budget: a door or a moving occluder is
    /// heard at once.
    public var maximumPathsPerUpdate: Int {
        get { lock.withLock { pathBudget } }
        set { lock.withLock { pathBudget = max(1, newValue) } }
    }

    /// Whether neither the listener nor the voice moved past the threshold
    /// since `cached` was worked out.
    ///
    /// - Parameters:
    ///   - threshold: The movement threshold in metres.
    ///   - cached: The voice's last result.
    ///   - listener: Where the listener is now.
    ///   - position: Where the voice is now.
    static func within(
        _ threshold: Float, _ cached: Cached, listener: SIMD3<Float>, position: SIMD3<Float>
    ) -> Bool {
        if cached.listener == listener && cached.position == position { return true }
        return stayed(
            from: (cached.position, cached.listener), to: (position, listener), within: threshold,
            relative: relativeMovementThreshold)
    }

    /// Whether neither a voice nor the listener moved, since a result was
    /// worked out for them, by more than `reach` metres, or `relative` of
    /// the distance between them then when that is more: the test both a
    /// cached path (``movementThreshold``) and a path's audibility
    /// (``PathAudibility``) stand by.
    ///
    /// - Parameters:
    ///   - then: Where the voice and the listener were.
    ///   - now: Where they are now.
    ///   - reach: The movement allowed, in metres.
    ///   - relative: The movement allowed as a fraction of the distance then.
    static func stayed(
        from then: (position: SIMD3<Float>, listener: SIMD3<Float>),
        to now: (position: SIMD3<Float>, listener: SIMD3<Float>), within reach: Float, relative: Float
    ) -> Bool {
        let allowed = max(reach, relative * length(then.position - then.listener))
        let squared = allowed * allowed
        let l = then.listener - now.listener
        let p = then.position - now.position
        return (l * l).sum() <= squared && (p * p).sum() <= squared
    }

    /// The voices (indices into `kept`) to work out paths for this update,
    /// in index order: all of `changed`, and of `waiting` the `budget`
    /// first: those with no path, then the stalest, the louder first among as stale.
    ///
    /// - Parameters:
    ///   - changed: The voices whose path the geometry or their radius made out of date, in order.
    ///   - waiting: The voices with no path or one out of date by movement, in order.
    ///   - kept: Each voice's last result, if any.
    ///   - budget: The most of `waiting` to work out.
    static func budgeted(changed: [Int], waiting: [Int], kept: [Cached?], budget: Int) -> [Int] {
        guard waiting.count > budget else { return changed.isEmpty ? waiting : (changed + waiting).sorted() }
        let ordered = waiting.sorted { a, b in
            let (x, y) = (kept[a]?.update ?? -1, kept[b]?.update ?? -1)
            if x != y { return x < y }
            let (u, v) = (kept[a]?.path.gains.mid ?? 1, kept[b]?.path.gains.mid ?? 1)
            return u != v ? u > v : a < b
        }
        return (changed + ordered.prefix(budget)).sorted()
    }
}
