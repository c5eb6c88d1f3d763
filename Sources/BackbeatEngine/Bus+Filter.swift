import BackbeatMedia

/// A bus's filter and its glide, with the engine lock.
struct BusFilterState {
    var filter: AudioFilter?
    var from = FilterGains.open
    var to = FilterGains.open
    var start: Int64 = 0
    var end: Int64 = 0

    func gains(at frame: Int64) -> FilterGains {
        guard frame < end, end > start else { return to }
        return from.moved(toward: to, fraction: Float(Double(frame - start) / Double(end - start)))
    }
}

extension Bus {
    /// A filter on everything this bus carries (its voices, its music, and the
    /// buses under it), such as a low-pass on the world bus under a pause menu;
    /// nil for none. Setting it glides there over the de-zipper time
    /// (``AudioEngine/dezipperDuration``); ``setFilter(_:over:)`` glides longer.
    public var filter: AudioFilter? {
        get { engine.map { e in e.withLock { filterState.filter } } ?? filterState.filter }
        set { setFilter(newValue, over: .zero) }
    }

    /// Glides the bus's filter to `filter` (nil: none) over `duration` of
    /// engine time, or over the de-zipper time if that is longer.
    ///
    /// - Parameters:
    ///   - filter: The new filter; nil removes it.
    ///   - duration: The glide's length in engine time; zero glides over the de-zipper time.
    public func setFilter(_ filter: AudioFilter?, over duration: MediaTime) {
        guard let engine else { return }
        engine.withLock {
            let now = engine.currentFrameLocked
            let frames = max(engine.dezipperFrames, duration.frames(atSampleRate: engine.sampleRate))
            let target = filter?.gains(sampleRate: engine.sampleRate) ?? .open
            filterState = BusFilterState(
                filter: filter, from: filterState.gains(at: now), to: target, start: now, end: now + frames)
            recordLocked(.busFilter) { encoder in
                EngineCaptureValues.encode(filter, into: &encoder)
                EngineCaptureValues.encode(duration, into: &encoder)
            }
        }
    }

    /// This bus's filter and its parents', in series, at `frame`.
    package func effectiveFilter(at frame: Int64) -> FilterGains {
        preconditionEngineLocked()
        var gains = snapshotFilter(over: filterState.gains(at: frame), at: frame)
        var bus = parent
        while let b = bus {
            gains = gains.then(b.snapshotFilter(over: b.filterState.gains(at: frame), at: frame))
            bus = b.parent
        }
        return gains
    }
}

extension AudioEngine {
    /// How long a change made without a glide takes to reach its target
    /// (filters, obstruction, occlusion, reverb sends and the reverb itself):
    /// eight update periods, 40 ms at 48 kHz, so nothing zippers.
    public var dezipperDuration: MediaTime { MediaTime(frames: dezipperFrames, sampleRate: sampleRate) }

    /// ``dezipperDuration`` in output frames.
    package var dezipperFrames: Int64 { Int64(8 * updateInterval) }
}
