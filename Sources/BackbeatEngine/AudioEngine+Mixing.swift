extension AudioEngine {
    /// Makes a bus for a group of sounds (dialogue, UI, ambience) feeding
    /// `parent` (default: the master bus).
    public func makeBus(named name: String, parent: Bus? = nil) -> Bus {
        let bus = Bus(name: name, parent: parent ?? masterBus)
        bus.engine = self
        withLock { buses.append(bus) }
        return bus
    }

    /// Applies every voice and bus change made in `body` together, on the
    /// same mixed frame (AL_SOFT_deferred_updates).
    public func performBatchUpdates<T>(_ body: () throws -> T) throws -> T {
        defer { deliverPendingEvents() }
        return try device.batch(body)
    }
}
