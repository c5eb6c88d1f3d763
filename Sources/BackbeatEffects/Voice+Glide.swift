import BackbeatCapture
import BackbeatEngine
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A path a voice moves along at constant speed over engine time.
struct Glide {
    let points: [Audio3DPoint]
    /// Distance along the path at each point; the last is the path's length.
    let distances: [Float]
    let startFrame: Int64
    let frames: Int64
    let sampleRate: Int

    /// Where the voice is at `frame`, how fast it moves there, and whether it has arrived.
    func state(at frame: Int64) -> (position: Audio3DPoint, velocity: Audio3DPoint, arrived: Bool) {
        let length = distances[distances.count - 1]
        let elapsed = max(0, frame - startFrame)
        guard frames > 0, length > 0, elapsed < frames else { return (points[points.count - 1], .zero, true) }
        let progress = Float(Double(elapsed) / Double(frames))
        let along = progress * length
        // Paths are short: a walk finds the segment.
        var segment = 1
        while segment < distances.count - 1 && distances[segment] < along { segment += 1 }
        let a = points[segment - 1]
        let b = points[segment]
        let span = distances[segment] - distances[segment - 1]
        let t = span > 0 ? (along - distances[segment - 1]) / span : 1
        let position = Audio3DPoint(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t, z: a.z + (b.z - a.z) * t)
        let speed = length / Float(Double(frames) / Double(sampleRate))
        let velocity =
            span > 0
            ? Audio3DPoint(
                x: (b.x - a.x) / span * speed, y: (b.y - a.y) / span * speed, z: (b.z - a.z) / span * speed)
            : .zero
        return (position, velocity, false)
    }
}

/// Steps the voices with a glide under way, on every update step before the
/// voice pool looks at them, so the pool sends this step's values and an
/// offline render is the same every time. A path sets the position and
/// velocity for the step's start; a volume, rate or pan glide sets its value
/// for the step's end (OpenAL ramps gains across the step's mix, so the
/// rendered level follows the curve between steps). Voices with no glide are
/// not in its list and cost nothing.
final class VoiceGlides: EngineComponent {
    private(set) var voices: [Voice] = []
    weak var engine: AudioEngine?

    /// Steps `voice` from the next update on, until its glides end.
    func add(_ voice: Voice) {
        if !voices.contains(where: { $0 === voice }) { voices.append(voice) }
    }

    func update(at frame: Int64) throws {
        guard !voices.isEmpty, let engine else { return }
        let end = frame + Int64(engine.updateInterval)
        voices.removeAll { voice in
            guard !voice.isFinishedLocked else {
                voice.glide = nil
                voice.volumeRamp = nil
                voice.rateRamp = nil
                voice.panRamp = nil
                return true
            }
            if let glide = voice.glide {
                let (position, velocity, arrived) = glide.state(at: frame)
                voice.positionValue = position
                voice.velocityValue = velocity
                if arrived { voice.glide = nil }
                voice.audibilityChanged()
                if let source = voice.record.source { voice.applyPlacement(to: source) }
            }
            if let ramp = voice.volumeRamp {
                voice.setVolumeLocked(ramp.value(at: end))
                if ramp.isComplete(at: end) { voice.volumeRamp = nil }
            }
            if let ramp = voice.rateRamp {
                voice.setRateLocked(ramp.value(at: end))
                if ramp.isComplete(at: end) { voice.rateRamp = nil }
            }
            if let ramp = voice.panRamp {
                voice.panValue = Voice.clampPan(ramp.value(at: end), else: voice.panValue)
                if voice.positionValue == nil, let source = voice.record.source { voice.applyPlacement(to: source) }
                if ramp.isComplete(at: end) { voice.panRamp = nil }
            }
            return voice.glide == nil && voice.volumeRamp == nil && voice.rateRamp == nil && voice.panRamp == nil
        }
    }

    /// Every period while a voice glides; nothing otherwise.
    func nextDueFrame(after frame: Int64) -> Int64? { voices.isEmpty ? nil : frame }
    func nextStepFrame(after frame: Int64) -> Int64? { voices.isEmpty ? nil : frame }

    func engineWillShutDown() { voices.removeAll() }
}

extension AudioEngine {
    /// The engine's gliding voices (paths, volume, rate and pan), made on
    /// first use and stepped before the voice pool. With the lock held.
    var voiceGlidesLocked: VoiceGlides {
        let effects = effectsLocked
        if let glides = effects.glides { return glides }
        // Registered first after the pool, so the glides step before it.
        _ = voicePoolLocked
        let glides = VoiceGlides()
        glides.engine = self
        registerLocked(glides, first: true)
        effects.glides = glides
        return glides
    }
}

extension Voice {
    /// Moves the voice along `path`, point to point at a constant speed, over
    /// `duration` of engine time from now: a car down a road, a bird across
    /// the sky. It is placed at the first point at once and arrives at the
    /// last one `duration` later, where it stays.
    ///
    /// Every update step sets its ``position`` and ``velocity`` (so its
    /// Doppler shift follows the path) on the step's boundary in engine time:
    /// an offline render of a glide is the same every time. Setting
    /// ``position`` by hand, or a new glide, ends the current one.
    ///
    /// - Throws: `invalidArgument` for an empty path, a point that is not
    ///   finite, or a duration that is negative or not finite. A zero duration
    ///   puts the voice at the last point.
    ///
    /// - Parameters:
    ///   - path: The points to pass through, in metres, the first one where the voice starts.
    ///   - duration: How long the whole path takes, in engine time.
    public func move(along path: [Audio3DPoint], duration: MediaTime) throws {
        try move(along: path, from: nil, duration: duration)
    }

    /// ``move(along:duration:)``, from where the voice is now when `from` is
    /// given: the glide under way at the engine's current frame, else its
    /// position, else `from` (a 2D voice).
    private func move(along path: [Audio3DPoint], from: Audio3DPoint?, duration: MediaTime) throws {
        guard let first = from ?? path.first else {
            throw BackbeatError(.invalidArgument, operation: "Voice.move(along:duration:)", reason: "the path is empty")
        }
        guard path.allSatisfy(\.isFinite) else {
            throw BackbeatError(
                .invalidArgument, operation: "Voice.move(along:duration:)", reason: "a point of the path is not finite")
        }
        guard duration.seconds.isFinite, duration.seconds >= 0 else {
            throw BackbeatError(
                .invalidArgument, operation: "Voice.move(along:duration:)",
                reason: "duration must be finite and not negative, got \(duration.seconds) s")
        }
        let points = from != nil ? [first] + path : path.count == 1 ? [first, first] : path
        var distances: [Float] = [0]
        for (a, b) in zip(points, points.dropFirst()) {
            let (dx, dy, dz) = (b.x - a.x, b.y - a.y, b.z - a.z)
            distances.append(distances[distances.count - 1] + (dx * dx + dy * dy + dz * dz).squareRoot())
        }
        guard distances[distances.count - 1].isFinite else {
            throw BackbeatError(
                .invalidArgument, operation: "Voice.move(along:duration:)", reason: "the path is too long to measure")
        }
        guard let engine else { return }
        try engine.withLock {
            var points = points
            var distances = distances
            var accepted = false
            // Recorded on the way out, once nothing can refuse the call.
            defer {
                if accepted {
                    if from != nil, let target = path.first {
                        recordLocked(.moveTo) { encoder in
                            EffectsCaptureCoding.encode(target, into: &encoder)
                            EffectsCaptureCoding.encode(duration, into: &encoder)
                        }
                    } else {
                        recordLocked(.moveAlong) { encoder in
                            encoder.append(UInt64(path.count))
                            for point in path { EffectsCaptureCoding.encode(point, into: &encoder) }
                            EffectsCaptureCoding.encode(duration, into: &encoder)
                        }
                    }
                }
            }
            let replacing = from != nil && glide != nil
            if from != nil {
                // Where the voice is at this frame: on the path under way (its last
                // update step may lie up to a step behind), else where it was put.
                let here = glide?.state(at: engine.currentFrameLocked).position ?? positionValue ?? points[1]
                points[0] = here
                let (dx, dy, dz) = (points[1].x - here.x, points[1].y - here.y, points[1].z - here.z)
                distances = [0, (dx * dx + dy * dy + dz * dz).squareRoot()]
                guard distances[1].isFinite else {
                    throw BackbeatError(
                        .invalidArgument, operation: "Voice.move(to:duration:)",
                        reason: "the way is too long to measure")
                }
            }
            accepted = true
            let glide = Glide(
                points: points, distances: distances, startFrame: engine.currentFrameLocked,
                frames: duration.frames(atSampleRate: engine.sampleRate, rounding: .nearest),
                sampleRate: engine.sampleRate)
            self.glide = glide
            // Replacing a glide under way: the voice stays where its last update
            // step put it, and the next step places it on the new way.
            if replacing && glide.frames > 0 { return }
            let (position, velocity, arrived) = glide.state(at: glide.startFrame)
            positionValue = position
            velocityValue = velocity
            audibilityChanged()
            if let source = record.source { _ = try? engine.device.withContext { applyPlacement(to: source) } }
            if arrived {
                self.glide = nil
                return
            }
            engine.voiceGlidesLocked.add(self)
        }
    }

    /// Moves the voice in a straight line from where it is (or from `point`,
    /// if it is 2D) to `point`, over `duration` of engine time: see
    /// ``move(along:duration:)``. Started while a glide runs, it replaces
    /// it from the point that glide has reached at the engine's current
    /// frame, so the voice goes on from there without a jump or a pause.
    ///
    /// - Parameters:
    ///   - point: Where the voice arrives, in metres.
    ///   - duration: How long the move takes, in engine time.
    /// - Throws: `invalidArgument` for a point that is not finite, or a duration
    ///   that is negative or not finite, as ``move(along:duration:)``.
    public func move(to point: Audio3DPoint, duration: MediaTime) throws {
        try move(along: [point], from: point, duration: duration)
    }
}
