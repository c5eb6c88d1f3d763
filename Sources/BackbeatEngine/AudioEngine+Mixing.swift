extension AudioEngine {
    /// Makes a bus for a group of sounds (dialogue, UI, ambience) feeding
    /// `parent` (default: the master bus).
    ///
    /// - Parameters:
    ///   - name: The bus's name, as snapshots and banks refer to it.
    ///   - parent: The bus it feeds; nil feeds the master bus.
    /// - Returns: The new bus, at volume 1.
    public func makeBus(named name: String, parent: Bus? = nil) -> Bus {
        let bus = Bus(name: name, parent: parent ?? masterBus)
        bus.engine = self
        withLock {
            buses.append(bus)
            refreshSoloLocked()
            _ = bus.captureIDLocked()
        }
        return bus
    }

    /// Applies every voice and bus change made in `body` together, on the
    /// same mixed frame (AL_SOFT_deferred_updates).
    ///
    /// `body` may call the engine (each call takes the lock as usual); update
    /// steps that run meanwhile hold their changes back too, until the batch ends.
    ///
    /// - Parameter body: The changes to apply together.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws; the changes it made before throwing still apply.
    public func performBatchUpdates<T>(_ body: () throws -> T) throws -> T {
        defer { deliverPendingEvents() }
        try withLock {
            try device.deferUpdates()
            openBatches += 1
        }
        defer {
            withLock {
                openBatches -= 1
                if openBatches == 0 { device.processUpdates() }
            }
        }
        return try body()
    }
}
