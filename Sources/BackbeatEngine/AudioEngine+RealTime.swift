/// What the rest of the engine asks of a real-time output's update loop
/// (see `EngineUpdateLoop`), through the engine that owns it.
extension AudioEngine {
    /// Steps a real-time output's thread has taken since the engine opened:
    /// each is one wakeup (zero on other outputs).
    package var realTimeSteps: Int { updateLoop.steps }

    /// Whether the caller is this engine's real-time thread.
    var isOnRealTimeThread: Bool { withLock(waking: false) { updateLoop.isCurrentThreadLocked } }

    /// Waits until the real-time thread has taken engine time to `frame`, or
    /// until `seconds` of wall time pass. The wall clock only bounds the wait;
    /// engine time decides when it is over.
    func waitForRealTime(toReach frame: Int64, atMost seconds: Double) {
        updateLoop.wait(toReach: frame, atMost: seconds)
    }
}
