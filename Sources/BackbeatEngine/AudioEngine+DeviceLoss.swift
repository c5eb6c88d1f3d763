import BackbeatOpenAL
import BackbeatSession
import BackbeatSupport
import Dispatch

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AudioEngine {
    /// The output went away (ALC_EXT_disconnect on a device, or the injected
    /// path tests use). Backbeat tells the session (old device unavailable:
    /// music pauses, effects go on), opens a replacement, and moves every
    /// sound buffer, voice and stream onto it where it was, so nothing is
    /// lost. When no replacement device opens, the engine goes on rendering
    /// through a loopback device in real time, with no sound, and says so.
    ///
    /// Runs under the engine lock. A real-time engine's own detection uses
    /// ``handleDisconnectLocked()`` instead, which opens nothing here.
    func handleDeviceLossLocked(readPositions: Bool = false, reopen: (() throws -> ALDevice)? = nil) {
        preconditionLocked()
        let lost = device
        let previous = AudioRoute(name: lost.name)
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
        replaceDeviceLocked(with: replacement, readPositions: readPositions).close()
        postLocked(
            .outputLost(
                device: lost.name,
                replacement: replacement.isLoopback && fallbackReason != nil ? nil : replacement.name,
                reason: fallbackReason ?? "device disconnected"))
        let current = AudioRoute(name: fallbackReason == nil ? replacement.name : "none")
        let session = self.session
        postLocked(callback: { session.systemLostDevice(previousRoute: previous, currentRoute: current) })
    }

    /// A real-time engine's device disconnected (seen on its update thread).
    /// Under the lock it only moves everything onto a silent loopback device
    /// that keeps engine time moving, and reports the loss; opening a real
    /// device again, and closing the lost one, are left to the device watch,
    /// off this thread, because both can wait on the sound server.
    func handleDisconnectLocked() {
        preconditionLocked()
        guard let fallback = try? ALDevice.openLoopback(sampleRate: sampleRate, channels: channelCount) else {
            postLocked(
                .outputLost(device: device.name, replacement: nil, reason: "no OpenAL device could be opened"))
            return
        }
        let lost = replaceDeviceLocked(with: fallback, readPositions: false)
        deviceWatch.reopen(leaving: lost)
        postLocked(.outputLost(device: lost.name, replacement: nil, reason: "device disconnected"))
        let previous = AudioRoute(name: lost.name)
        let session = self.session
        postLocked(callback: {
            session.systemLostDevice(previousRoute: previous, currentRoute: AudioRoute(name: "none"))
        })
    }

    /// Moves every voice, stream and buffer from the current device onto
    /// `replacement`, where it was, and returns the device left (its sources
    /// stopped; the caller closes it). `readPositions` says whether the old
    /// device can still tell where its sources were.
    @discardableResult
    func replaceDeviceLocked(with replacement: ALDevice, readPositions: Bool) -> ALDevice {
        preconditionLocked()
        let old = device
        let frame = currentFrameLocked
        for component in components.compactMap(\.component) {
            component.deviceWillBeReplaced(readPositions: readPositions)
        }
        // Bus effect slots belong to the old device: the next step makes new ones.
        for bus in buses {
            bus.effectState.slot = nil
            bus.effectState.loaded = nil
        }
        // A device still playing falls silent now, though it closes later.
        old.stopAllSources()
        device = replacement
        device.makeContextCurrent()
        if replacement.isLoopback {
            framesRendered = frame
            nextUpdateFrame = frame
        } else {
            clockOrigin = replacement.clockNanoseconds() ?? 0
            clockBaseFrame = frame
            nextUpdateFrame = frame
        }
        stepRequested = true
        do {
            for component in components.compactMap(\.component) {
                try component.deviceWasReplaced()
            }
        } catch let error as BackbeatError {
            postLocked(.outputLost(device: old.name, replacement: replacement.name, reason: error.description))
        } catch {}
        return old
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
    ///
    /// - Parameter work: The slow part, run off the update thread and outside the lock.
    package func afterDeviceReplacementLocked(_ work: @escaping @Sendable () -> Void) {
        preconditionLocked()
        recoveryWork.append(work)
    }

    /// The recovery work left so far, for the thread that handled the loss to run outside the lock.
    func takeRecoveryWorkLocked() -> [@Sendable () -> Void] {
        preconditionLocked()
        defer { recoveryWork.removeAll() }
        return recoveryWork
    }

    /// Runs recovery work off the calling thread (the update thread must not decode).
    func runRecoveryWork(_ work: [@Sendable () -> Void]) {
        guard !work.isEmpty else { return }
        recoveryQueue.async {
            for item in work { item() }
            ALDevice.clearThreadContext()
        }
    }

    /// The device watch's attempts to reopen a lost device so far.
    package var deviceWatchAttempts: DeviceWatchAttempts { deviceWatch.attempts }
}
