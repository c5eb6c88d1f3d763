import BackbeatMedia

extension AudioEngine {
    /// Engine time: frames rendered (or played, on a device) since the engine opened.
    public var currentTime: MediaTime {
        MediaTime(frames: currentFrame, sampleRate: sampleRate)
    }

    /// Engine time in frames.
    package var currentFrame: Int64 { withLock(waking: false) { currentFrameLocked } }

    /// Engine time in frames, with the lock held.
    package var currentFrameLocked: Int64 {
        preconditionLocked()
        guard !device.isLoopback else { return framesRendered }
        let ns = (device.clockNanoseconds() ?? clockOrigin) - clockOrigin
        return clockBaseFrame + Int64((Double(ns) * Double(sampleRate) / 1e9).rounded(.down))
    }

    /// Engine time in frames and the output latency (ns), read together
    /// from the device: the frame is heard that much later. Nil off a real device.
    package var frameAndOutputLatency: (frame: Int64, latencyNanoseconds: Int64)? {
        withLock {
            guard let reading = device.clockAndLatencyNanoseconds(),
                let frame = frameLocked(atDeviceClock: reading.clock)
            else { return nil }
            return (frame, reading.latency)
        }
    }

    /// The engine frame a reading of the device clock (ns) stands for, as
    /// ``currentFrameLocked`` counts; nil on a loopback device.
    ///
    /// - Parameter nanoseconds: A reading of the device clock.
    /// - Returns: The engine frame, or nil on a loopback device.
    package func frameLocked(atDeviceClock nanoseconds: Int64) -> Int64? {
        preconditionLocked()
        guard !device.isLoopback else { return nil }
        return clockBaseFrame + Int64((Double(nanoseconds - clockOrigin) * Double(sampleRate) / 1e9).rounded(.down))
    }
}
