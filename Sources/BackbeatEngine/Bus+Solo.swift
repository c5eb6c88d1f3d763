/// Solo, as on a mixing desk: while any bus is soloed, only the soloed
/// buses and the buses on their paths (their parents up to the master, and
/// their children) are heard.
extension Bus {
    /// Solos this bus, as on a mixing desk: while any bus is soloed, every
    /// bus that is neither soloed, nor a parent (at any depth) of a soloed
    /// bus, nor a child (at any depth) of one, is silenced. A silenced bus
    /// ramps to silence as a mute does, and back when the solo ends; its time
    /// goes on. Several buses may be soloed at once. Default false.
    public var isSoloed: Bool {
        get { locked { soloed } }
        set { locked { setSoloedLocked(newValue) } }
    }

    /// ``isSoloed`` with the engine lock held.
    package var isSoloedLocked: Bool {
        preconditionEngineLocked()
        return soloed
    }

    /// Sets ``isSoloed`` with the engine lock held; every bus of the engine
    /// learns whether it is silenced now.
    ///
    /// - Parameter newValue: Whether this bus is soloed.
    package func setSoloedLocked(_ newValue: Bool) {
        preconditionEngineLocked()
        guard soloed != newValue else { return }
        soloed = newValue
        engine?.refreshSoloLocked()
        recordLocked(.busSolo) { $0.append(newValue) }
    }

    /// Whether `other` is this bus, one of its parents at any depth, or one of its children at any depth.
    func isOnPath(of other: Bus) -> Bool {
        other.isSelfOrDescendant(of: self) || isSelfOrDescendant(of: other)
    }

    private func isSelfOrDescendant(of ancestor: Bus) -> Bool {
        var bus: Bus? = self
        while let b = bus {
            if b === ancestor { return true }
            bus = b.parent
        }
        return false
    }
}

extension AudioEngine {
    /// Tells every bus whether a solo silences it: on a solo's change and
    /// when a bus is made (a new bus off every soloed path is silent too).
    func refreshSoloLocked() {
        preconditionLocked()
        let soloed = buses.filter(\.soloed)
        for bus in buses {
            bus.soloSilenced = !soloed.isEmpty && !soloed.contains { bus.isOnPath(of: $0) }
        }
    }
}
