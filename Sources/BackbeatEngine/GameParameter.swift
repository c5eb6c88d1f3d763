import BackbeatCapture
import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How a ``GameParameter``'s value maps to what it drives (a gain, a rate):
/// straight lines between points, flat beyond the first and the last.
///
/// ```swift
/// let drumsIn = try ParameterCurve(points: [(0.3, 0), (0.7, 1)])   // silent below 0.3, full above 0.7
/// let pitch = ParameterCurve.linear(from: 1, to: 2)                 // over the parameter's range
/// ```
public struct ParameterCurve: Sendable, Hashable, Codable {
    /// The points (parameter value, output), in increasing parameter order; nil for ``linear(from:to:)``.
    public let points: [Point]?
    let from: Float
    let to: Float

    /// One point of a curve.
    public struct Point: Sendable, Hashable, Codable {
        /// The parameter's value.
        public var input: Float
        /// What it maps to.
        public var output: Float
    }

    /// Straight from `from` at the bottom of the parameter's range to `to` at its top.
    ///
    /// - Parameters:
    ///   - from: The output at the bottom of the parameter's range.
    ///   - to: The output at its top.
    /// - Returns: The curve; values outside the range give the nearer end's output.
    public static func linear(from: Float, to: Float) -> ParameterCurve {
        ParameterCurve(points: nil, from: from, to: to)
    }

    /// The identity over the range's bottom and top mapped to 0...1.
    public static let linear = ParameterCurve.linear(from: 0, to: 1)

    private init(points: [Point]?, from: Float, to: Float) {
        self.points = points
        self.from = from
        self.to = to
    }

    /// A curve through `points`, given as (parameter value, output) pairs.
    ///
    /// - Parameter points: (parameter value, output) pairs, by increasing value; the output is linear between them and flat beyond the ends.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` for no points, a value that is not finite,
    ///   or parameter values not strictly increasing.
    public init(points: [(Float, Float)]) throws {
        guard !points.isEmpty, points.allSatisfy({ $0.0.isFinite && $0.1.isFinite }),
            zip(points, points.dropFirst()).allSatisfy({ $0.0 < $1.0 })
        else {
            throw BackbeatError(
                .invalidArgument, operation: "ParameterCurve",
                reason: "points must be finite, at least one, with strictly increasing inputs")
        }
        self.init(points: points.map { Point(input: $0.0, output: $0.1) }, from: 0, to: 0)
    }

    /// The output for `value` of a parameter whose range is `range`.
    ///
    /// - Parameters:
    ///   - value: The parameter's value.
    ///   - range: The parameter's range; a ``linear(from:to:)`` curve maps its bottom to `from` and its top to `to`.
    /// - Returns: The curve's output for `value`.
    public func output(for value: Float, in range: ClosedRange<Float>) -> Float {
        guard let points else {
            let span = range.upperBound - range.lowerBound
            let t = span > 0 ? (value - range.lowerBound) / span : 0
            return from + (to - from) * min(max(t, 0), 1)
        }
        if value <= points[0].input { return points[0].output }
        for (a, b) in zip(points, points.dropFirst()) where value <= b.input {
            return a.output + (b.output - a.output) * (value - a.input) / (b.input - a.input)
        }
        return points[points.count - 1].output
    }
}

/// A named game value, such as "intensity" (0…1) or "speed" (0…300), that
/// drives volumes, playback rate (pitch) and music layers through
/// ``ParameterCurve``s. Its heard value follows the value set at most
/// ``slewPerSecond`` per second of engine time, so a jump never clicks.
///
/// ```swift
/// let intensity = try GameParameter(name: "intensity", engine: engine, slewPerSecond: 2)
/// music.bindLayer("drums", to: intensity, curve: try ParameterCurve(points: [(0.3, 0), (0.7, 1)]))
/// intensity.value = 0.9
/// ```
public final class GameParameter: @unchecked Sendable, EngineComponent {
    // @unchecked: the mutable state is touched only under the engine lock
    // (the engine-side members check it in debug builds).

    /// The parameter's name.
    public let name: String
    /// The values it takes.
    public let range: ClosedRange<Float>
    /// The most the heard value moves per second of engine time (nil: at once).
    public let slewPerSecond: Float?
    weak var engine: AudioEngine?
    private var target: Float
    private var heard: Float
    private var lastFrame: Int64?
    private var drivers: [(Float) -> Bool] = []
    /// Whether the heard value had reached the value set at the last update step.
    private var restedAtLastStep = true
    /// The parameter's id in the capture that last saw it, under the engine lock.
    private var captureTag = CaptureTag()

    /// A parameter on `engine`, starting at `initialValue` (default: the range's bottom).
    ///
    /// - Parameters:
    ///   - name: A name to tell the parameter by in errors and logs.
    ///   - range: The values it takes, finite.
    ///   - initialValue: Where it starts, within `range`; nil starts at the bottom.
    ///   - slewPerSecond: The most the heard value moves per second of engine time; nil jumps at once.
    ///   - engine: The engine whose update steps move it.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` for a range or value that is not finite,
    ///   an initial value outside the range, or a slew that is not positive.
    public init(
        name: String, range: ClosedRange<Float> = 0...1, initialValue: Float? = nil, slewPerSecond: Float? = nil,
        engine: AudioEngine
    ) throws {
        let start = initialValue ?? range.lowerBound
        guard range.lowerBound.isFinite, range.upperBound.isFinite, start.isFinite, range.contains(start) else {
            throw BackbeatError(
                .invalidArgument, operation: "GameParameter",
                reason: "\"\(name)\": range \(range) and initial value \(start) must be finite, the value inside")
        }
        if let slewPerSecond, !(slewPerSecond.isFinite && slewPerSecond > 0) {
            throw BackbeatError(
                .invalidArgument, operation: "GameParameter",
                reason: "\"\(name)\": slew \(slewPerSecond) per second must be above 0")
        }
        self.name = name
        self.range = range
        self.slewPerSecond = slewPerSecond
        self.engine = engine
        target = start
        heard = start
        engine.withLock {
            engine.registerLocked(self)
            _ = captureIDLocked()
        }
    }

    /// The value the game set (clamped to the range; NaN ignored). The heard value follows it.
    public var value: Float {
        get { engine?.withLock { target } ?? target }
        set {
            if let engine { engine.withLock { setValueLocked(newValue) } } else { setValueLocked(newValue) }
        }
    }

    /// Sets ``value`` with the engine lock held, as its setter does (clamped, NaN ignored).
    ///
    /// - Parameter newValue: The value to set; the heard value follows it.
    package func setValueLocked(_ newValue: Float) {
        preconditionEngineLocked()
        guard !newValue.isNaN else { return }
        target = min(max(newValue, range.lowerBound), range.upperBound)
        if let engine, engine.captureRecorder != nil, let id = captureIDLocked() {
            engine.recordLocked(.parameterValue) { encoder in
                encoder.append(id)
                encoder.append(newValue)
            }
        }
    }

    /// This parameter's id in the capture being written, declaring it (with
    /// its value set and heard now) the first time the capture sees it; nil
    /// when no capture is on. Other modules name a parameter a binding follows with it.
    ///
    /// - Returns: The parameter's capture id, or nil.
    package func captureIDLocked() -> UInt32? {
        guard let engine, engine.captureRecorder != nil else { return nil }
        preconditionEngineLocked()
        return engine.captureIDLocked(&captureTag, declaring: .parameterDeclare) { encoder in
            encoder.append(name)
            encoder.append(range.lowerBound)
            encoder.append(range.upperBound)
            encoder.append(target)
            encoder.append(heard)
            encoder.appendOptional(slewPerSecond) { $0.append($1) }
        }
    }

    /// ``value`` with the engine lock held.
    package var valueLocked: Float {
        preconditionEngineLocked()
        return target
    }

    /// The value heard now: ``value`` reached through the slew limit, at the last update step.
    public var currentValue: Float { engine?.withLock { heard } ?? heard }

    /// Traps, in a debug build, unless the engine lock is held. A release build does nothing.
    @inline(__always)
    private func preconditionEngineLocked(file: StaticString = #fileID, line: UInt = #line) {
        #if DEBUG
        engine?.preconditionLocked(file: file, line: line)
        #endif
    }

    /// The heard value, under the engine lock.
    package var currentValueLocked: Float {
        preconditionEngineLocked()
        return heard
    }

    /// Calls `apply` with the heard value under the engine lock at every update step, from the next on,
    /// until it returns false. What drivers do (a gain, a pitch) must not take the engine lock.
    ///
    /// - Parameter apply: Takes the heard value; returns false to stop being called.
    package func driveLocked(_ apply: @escaping (Float) -> Bool) {
        preconditionEngineLocked()
        if apply(heard) { drivers.append(apply) }
    }

    /// Due every period while the heard value moves toward the value set;
    /// at rest, nothing is due (setting a value wakes a device's update loop).
    package func nextDueFrame(after frame: Int64) -> Int64? {
        preconditionEngineLocked()
        return heard != target ? frame : nil
    }

    /// Every period while the heard value moves or a driver listens (a driver
    /// is called at every step); at rest with none, nothing.
    package func nextStepFrame(after frame: Int64) -> Int64? {
        preconditionEngineLocked()
        return heard != target || !drivers.isEmpty ? frame : nil
    }

    package func update(at frame: Int64) throws {
        preconditionEngineLocked()
        guard let engine else { return }
        var elapsed = lastFrame.map { max(0, frame - $0) } ?? 0
        // At rest, a device's update loop may have slept for several periods:
        // the slew starts from the step that sees the new value, as it does offline.
        if restedAtLastStep { elapsed = min(elapsed, Int64(engine.updateInterval)) }
        defer { restedAtLastStep = heard == target }
        lastFrame = frame
        if heard != target {
            if let slewPerSecond {
                let step = slewPerSecond * Float(elapsed) / Float(engine.sampleRate)
                heard = heard < target ? min(target, heard + step) : max(target, heard - step)
            } else {
                heard = target
            }
        }
        drivers.removeAll { !$0(heard) }
    }
}
