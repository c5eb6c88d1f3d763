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

    /// The most paths one ``update()`` works out (default: no limit). When
    /// more voices need one, those with none yet go first, then those whose
    /// path is oldest; the others keep their last result until a later
    /// update, so the work a frame does stays bounded however many voices
    /// move at once (Wwise Spatial Audio spreads its paths over frames the
    /// same way). At least 1.
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
        let allowed = max(threshold, relativeMovementThreshold * length(cached.position - cached.listener))
        let squared = allowed * allowed
        let l = cached.listener - listener
        let p = cached.position - position
        return (l * l).sum() <= squared && (p * p).sum() <= squared
    }

    /// The voices (indices into `kept`) to work out paths for this update:
    /// all of `missing` within the budget, else those with no path first,
    /// then the oldest paths.
    ///
    /// - Parameters:
    ///   - missing: The voices whose path is out of date, in order.
    ///   - kept: Each voice's last result, if any.
    ///   - budget: The most paths to work out.
    static func budgeted(_ missing: [Int], kept: [Cached?], budget: Int) -> [Int] {
        guard missing.count > budget else { return missing }
        let ordered = missing.sorted { a, b in
            let (x, y) = (kept[a]?.update ?? -1, kept[b]?.update ?? -1)
            return x != y ? x < y : a < b
        }
        return Array(ordered.prefix(budget)).sorted()
    }
}
