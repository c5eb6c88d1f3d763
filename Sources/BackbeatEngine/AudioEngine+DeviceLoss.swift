#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import BackbeatSupport
import BackbeatOpenAL
import BackbeatSession

extension AudioEngine {
    /// The output went away (ALC_EXT_disconnect on a device, or the injected
    /// path tests use). Backbeat tells the session (old device unavailable:
    /// music pauses, effects go on), opens a replacement, and moves every
    /// sound buffer, voice and stream onto it where it was, so nothing is
    /// lost. When no replacement device opens, the engine goes on rendering
    /// through a loopback device in real time, with no sound, and says so.
    ///
    /// Runs under the engine lock.
    func handleDeviceLossLocked(readPositions: Bool = false, reopen: (() throws -> ALDevice)? = nil) {
        let lost = device
        let previous = AudioRoute(name: lost.name)
        let frame = currentFrameLocked
        let reopen =
            reopen ?? {
                lost.isLoopback
                    ? try ALDevice.openLoopback(sampleRate: lost.sampleRate, channels: lost.channelCount)
                    : try ALDevice.openPlayback(name: nil)
            }
        var replacement: ALDevice?
        var fallbackReason: String?
        do {
            replacement = try reopen()
        } catch {
            // No device to move to: keep rendering, unheard, so time and events go on.
            fallbackReason = "\(error)"
            replacement = try? ALDevice.openLoopback(sampleRate: sampleRate, channels: channelCount)
        }
        guard let replacement else {
            // Not even a loopback device: nothing more can sound. Keep the state; report.
            postLocked(.outputLost(device: lost.name, replacement: nil, reason: "no OpenAL device could be opened"))
            return
        }
        for component in components.compactMap(\.component) {
            component.deviceWillBeReplaced(readPositions: readPositions)
        }
        lost.close()
        device = replacement
        if replacement.isLoopback {
            framesRendered = frame
            nextUpdateFrame = frame
        } else {
            clockOrigin = replacement.clockNanoseconds() ?? 0
            clockBaseFrame = frame
            nextUpdateFrame = frame
        }
        do {
            for component in components.compactMap(\.component) {
                try component.deviceWasReplaced()
            }
        } catch let error as BackbeatError {
            postLocked(.outputLost(device: lost.name, replacement: replacement.name, reason: error.description))
        } catch {}
        postLocked(
            .outputLost(
                device: lost.name,
                replacement: replacement.isLoopback && fallbackReason != nil ? nil : replacement.name,
                reason: fallbackReason ?? "device disconnected"))
        let current = AudioRoute(name: fallbackReason == nil ? replacement.name : "none")
        let session = self.session
        postLocked(callback: { session.systemLostDevice(previousRoute: previous, currentRoute: current) })
    }

    /// Simulates losing the output device, for tests: the same recovery as a
    /// real disconnect, with positions read from the old device first.
    /// `reopen` stands in for opening the replacement (throw to simulate a
    /// route change to a device that cannot be opened).
    /// The recovery's work outside the lock (decoding the cached sounds
    /// again) runs on the calling thread before it returns, so a test sees
    /// the recovered engine.
    func simulateDeviceLoss(reopen: (() throws -> ALDevice)? = nil) {
        let recovery = withLock {
            handleDeviceLossLocked(readPositions: true, reopen: reopen)
            return takeRecoveryWorkLocked()
        }
        deliverPendingEvents()
        for work in recovery { work() }
        deliverPendingEvents()
    }

    /// Leaves `work` for after the device replacement under way, outside the
    /// lock: a component's slow part of recovering (the sound cache decodes
    /// its sounds again there, then takes the lock briefly to upload them).
    /// The work must check, under the lock, that the engine still runs and
    /// that no later replacement has made it stale.
    package func afterDeviceReplacementLocked(_ work: @escaping @Sendable () -> Void) {
        recoveryWork.append(work)
    }

    /// The recovery work left so far, for the thread that handled the loss to run outside the lock.
    func takeRecoveryWorkLocked() -> [@Sendable () -> Void] {
        defer { recoveryWork.removeAll() }
        return recoveryWork
    }
}
