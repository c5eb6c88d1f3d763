import BackbeatCapture

/// A bus lowered for a while, such as music under a voice line. Release it to
/// bring the bus back up over the release time.
public final class Duck: @unchecked Sendable {
    // @unchecked: mutable state is read and written only under the engine lock
    // (its bus's engine; checked in debug builds).
    private weak var bus: Bus?
    private let target: Float
    private let attackFrames: Int64
    private let releaseFrames: Int64
    private weak var trigger: (any DuckReleaseTrigger)?
    private let waitsForTrigger: Bool
    private let releaseAt: Int64?
    private var fade: Fade?
    private var released = false
    /// The duck's id in the capture that recorded it, under the engine lock.
    var captureTag = CaptureTag()

    init(
        bus: Bus, target: Float, attackFrames: Int64, releaseFrames: Int64, trigger: (any DuckReleaseTrigger)?,
        releaseAt: Int64? = nil
    ) {
        self.releaseAt = releaseAt
        self.bus = bus
        self.target = target
        self.attackFrames = attackFrames
        self.releaseFrames = releaseFrames
        self.trigger = trigger
        self.waitsForTrigger = trigger != nil
    }

    /// Traps, in a debug build, unless the engine lock is held: a duck is
    /// its bus's state. A release build does nothing.
    @inline(__always)
    private func preconditionEngineLocked(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        bus?.preconditionEngineLocked(file: file, line: line)
        #endif
    }

    func begin(at frame: Int64) {
        preconditionEngineLocked()
        fade = Fade(from: 1, to: target, startFrame: frame, frames: attackFrames, curve: .linear)
    }

    /// Brings the bus back up over the release time. Idempotent.
    public func release() {
        guard let engine = bus?.engine else { return }
        engine.withLock {
            if captureTag.generation == engine.captureRecorder?.generation {
                let id = captureTag.id
                engine.recordLocked(.duckRelease) { $0.append(id) }
            }
            releaseLocked(at: engine.currentFrameLocked)
        }
    }

    private func releaseLocked(at frame: Int64) {
        preconditionEngineLocked()
        guard !released else { return }
        released = true
        let current = fade?.gain(at: frame) ?? target
        fade = Fade(from: current, to: 1, startFrame: frame, frames: releaseFrames, curve: .linear)
    }

    func gain(at frame: Int64) -> Float {
        preconditionEngineLocked()
        return fade?.gain(at: frame) ?? 1
    }

    func update(at frame: Int64) {
        preconditionEngineLocked()
        if waitsForTrigger, !released, trigger?.isFinishedLocked ?? true { releaseLocked(at: frame) }
        if let releaseAt, !released, frame >= releaseAt { releaseLocked(at: releaseAt) }
    }

    func isFinished(at frame: Int64) -> Bool {
        preconditionEngineLocked()
        return released && (fade?.isComplete(at: frame) ?? true)
    }
}

/// Something whose end releases a duck (a voice), read under the engine lock.
package protocol DuckReleaseTrigger: AnyObject {
    /// Whether it has ended; a trigger that has gone away counts as ended.
    var isFinishedLocked: Bool { get }
    /// How a capture names it (a voice's id), so a replay releases the duck
    /// when its own copy ends.
    var captureIDLocked: UInt64 { get }
}
