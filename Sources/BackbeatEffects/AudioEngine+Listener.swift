import BackbeatCapture
import BackbeatEngine
import BackbeatOpenAL
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The engine's listener: where positioned voices are heard from. It is
/// applied to the device when it changes and again on a replacement device.
final class Listener: EngineComponent {
    weak var engine: AudioEngine?
    var position = Audio3DPoint.zero
    /// Unit length and perpendicular to each other.
    var forward = Audio3DPoint(x: 0, y: 0, z: -1)
    var up = Audio3DPoint(x: 0, y: 1, z: 0)
    var distanceParameters = AudioDistanceAttenuationParameters()
    var velocity = Audio3DPoint.zero
    var dopplerFactor: Float = 1
    var speedOfSound: Float = 343.3
    /// The last place ``AudioEngine/moveListener(to:orientation:)`` put it, and when.
    var followed: (position: Audio3DPoint, frame: Int64)?
    /// How sound reaches the player (decides HRTF; kept for a replacement device).
    var outputType = AudioEnvironmentOutputType.externalSpeakers
    /// The HRTF data set asked for by name, nil for OpenAL Soft's default.
    var hrtfDataSet: String?

    init(engine: AudioEngine) { self.engine = engine }

    /// Nothing: the listener has no update step (its setters apply at once).
    func nextDueFrame(after frame: Int64) -> Int64? { nil }
    func nextStepFrame(after frame: Int64) -> Int64? { nil }

    func applyLocked() {
        guard let engine else { return }
        #if DEBUG
        engine.preconditionLocked()
        #endif
        try? engine.device.setListener(
            position: (position.x, position.y, position.z),
            forward: (forward.x, forward.y, forward.z), up: (up.x, up.y, up.z),
            velocity: (velocity.x, velocity.y, velocity.z))
        try? engine.device.setDoppler(factor: dopplerFactor, speedOfSound: speedOfSound)
    }

    static func model(_ model: AudioDistanceAttenuationModel) -> ALDevice.DistanceModel {
        switch model {
        case .inverse: .inverse
        case .linear: .linear
        case .exponential: .exponential
        }
    }

    func deviceWasReplaced() throws {
        // A new device opens with HRTF off and the default data set.
        if hrtfRequest != .off || hrtfDataSet != nil { applyHRTFLocked() }
        applyLocked()
    }

    /// Resets the device with the HRTF request and data set asked for. A data
    /// set the device does not offer (a replacement at another rate) falls back
    /// to the default one.
    @discardableResult
    func applyHRTFLocked() -> Bool {
        guard let engine else { return false }
        #if DEBUG
        engine.preconditionLocked()
        #endif
        let index = hrtfDataSet.flatMap { engine.device.hrtfDataSetNames.firstIndex(of: $0) }
        return (try? engine.device.setHRTF(hrtfRequest, dataSet: index)) ?? false
    }

    var hrtfRequest: ALDevice.HRTFRequest {
        switch outputType {
        case .automatic: .automatic
        case .headphones: .on
        case .builtInSpeakers, .externalSpeakers: .off
        }
    }

    /// The orientation as yaw, pitch and roll in degrees.
    var angular: Audio3DAngularOrientation {
        let degrees = Float(180) / Float.pi
        let yaw = atan2(forward.x, -forward.z)
        let pitch = asin(min(max(forward.y, -1), 1))
        let right0 = Audio3DPoint(x: cos(yaw), y: 0, z: sin(yaw))
        let up0 = Audio3DPoint(x: -sin(pitch) * sin(yaw), y: cos(pitch), z: sin(pitch) * cos(yaw))
        let roll = atan2(dot(up, right0), dot(up, up0))
        return Audio3DAngularOrientation(yaw: yaw * degrees, pitch: pitch * degrees, roll: roll * degrees)
    }

    /// Sets the orientation from yaw, pitch and roll in degrees; false if an angle is not finite.
    func setAngular(_ o: Audio3DAngularOrientation) -> Bool {
        guard o.yaw.isFinite, o.pitch.isFinite, o.roll.isFinite else { return false }
        let radians = Float.pi / 180
        let y = o.yaw * radians
        let p = o.pitch * radians
        let r = o.roll * radians
        forward = Audio3DPoint(x: cos(p) * sin(y), y: sin(p), z: -cos(p) * cos(y))
        up = Audio3DPoint(
            x: sin(r) * cos(y) - cos(r) * sin(p) * sin(y), y: cos(r) * cos(p),
            z: sin(r) * sin(y) + cos(r) * sin(p) * cos(y))
        return true
    }

    /// Sets the orientation from vectors, made unit length and perpendicular
    /// (up keeps its side of forward); false if they are not finite, are zero
    /// or are parallel.
    func setVectors(_ o: Audio3DVectorOrientation) -> Bool {
        guard o.forward.isFinite, o.up.isFinite, let f = normalized(o.forward) else { return false }
        let along = dot(o.up, f)
        guard
            let u = normalized(Audio3DPoint(x: o.up.x - along * f.x, y: o.up.y - along * f.y, z: o.up.z - along * f.z))
        else { return false }
        forward = f
        up = u
        return true
    }

    private func dot(_ a: Audio3DPoint, _ b: Audio3DPoint) -> Float { a.x * b.x + a.y * b.y + a.z * b.z }

    private func normalized(_ v: Audio3DPoint) -> Audio3DPoint? {
        let length = dot(v, v).squareRoot()
        guard length.isFinite, length > 1e-6 else { return nil }
        return Audio3DPoint(x: v.x / length, y: v.y / length, z: v.z / length)
    }
}

extension AudioEngine {
    /// The engine's listener, made (and registered for device replacement) on first use, with the lock held.
    var listenerLocked: Listener {
        let effects = effectsLocked
        if let listener = effects.listener { return listener }
        let listener = Listener(engine: self)
        registerLocked(listener)
        effects.listener = listener
        return listener
    }

    /// Sets one of the listener's properties and applies the listener, unless `isValid` is false.
    private func setListener<Value>(
        _ key: ReferenceWritableKeyPath<Listener, Value>, to value: Value, if isValid: Bool,
        recording change: ListenerChange, _ argument: (inout CaptureEncoder) -> Void
    ) {
        guard isValid else { return }
        withLock {
            recordListenerLocked(change, argument)
            let listener = listenerLocked
            listener[keyPath: key] = value
            listener.applyLocked()
            existingEffectsLocked?.pool?.audibilityDirty = true
        }
    }

    /// Where the listener stands, in metres (AVAudioEnvironmentNode.listenerPosition).
    ///
    /// Positioned voices are heard relative to it. A point with a NaN or
    /// infinite coordinate is ignored.
    public var listenerPosition: Audio3DPoint {
        get { withLock { listenerLocked.position } }
        set {
            setListener(\.position, to: newValue, if: newValue.isFinite, recording: .position) {
                EffectsCaptureCoding.encode(newValue, into: &$0)
            }
            withLock { existingEffectsLocked?.listener?.followed = nil }
        }
    }

    /// The listener's heading as yaw, pitch and roll in degrees
    /// (AVAudioEnvironmentNode.listenerAngularOrientation).
    ///
    /// Yaw 90 faces +X, so a voice at -Z is then heard on the left. Reading it
    /// back gives yaw and roll in -180...180 and pitch in -90...90. An
    /// orientation with a NaN or infinite angle is ignored.
    public var listenerAngularOrientation: Audio3DAngularOrientation {
        get { withLock { listenerLocked.angular } }
        set {
            withLock {
                let listener = listenerLocked
                if listener.setAngular(newValue) {
                    recordListenerLocked(.angularOrientation) {
                        $0.append(newValue.yaw)
                        $0.append(newValue.pitch)
                        $0.append(newValue.roll)
                    }
                    listener.applyLocked()
                }
            }
        }
    }

    /// The listener's heading as facing and up vectors
    /// (AVAudioEnvironmentNode.listenerVectorOrientation).
    ///
    /// Reading gives unit, perpendicular vectors. Setting normalizes them and
    /// makes up perpendicular to forward; vectors that are zero, parallel or
    /// not finite are ignored.
    public var listenerVectorOrientation: Audio3DVectorOrientation {
        get {
            withLock {
                let l = listenerLocked
                return Audio3DVectorOrientation(forward: l.forward, up: l.up)
            }
        }
        set {
            withLock {
                let listener = listenerLocked
                if listener.setVectors(newValue) {
                    recordListenerLocked(.vectorOrientation) {
                        EffectsCaptureCoding.encode(newValue.forward, into: &$0)
                        EffectsCaptureCoding.encode(newValue.up, into: &$0)
                    }
                    listener.applyLocked()
                }
            }
        }
    }

    /// How positioned voices fade with distance from the listener
    /// (AVAudioEnvironmentNode.distanceAttenuationParameters).
    ///
    /// Applies to every positioned voice at once, playing ones included.
    /// Parameters that are not ``AudioDistanceAttenuationParameters/isValid``
    /// are ignored.
    public var distanceAttenuationParameters: AudioDistanceAttenuationParameters {
        get { withLock { listenerLocked.distanceParameters } }
        set {
            withLock {
                guard newValue.isValid else { return }
                recordListenerLocked(.distance) { EffectsCaptureCoding.encode(newValue, into: &$0) }
                let listener = listenerLocked
                listener.distanceParameters = newValue
                listener.applyLocked()
                voicePoolLocked.reapplyPlacementsLocked()
                voicePoolLocked.audibilityDirty = true
            }
        }
    }

    /// How fast the listener moves, in metres per second (for the Doppler
    /// shift only: it does not move ``listenerPosition``). A vector with a NaN
    /// or infinite component is ignored.
    public var listenerVelocity: Audio3DPoint {
        get { withLock { listenerLocked.velocity } }
        set {
            setListener(\.velocity, to: newValue, if: newValue.isFinite, recording: .velocity) {
                EffectsCaptureCoding.encode(newValue, into: &$0)
            }
        }
    }

    /// Scales the Doppler shift of positioned voices: 1 (the default) is
    /// physical, 0 turns it off, 2 doubles the velocities' effect. Negative or
    /// non-finite values are ignored.
    public var dopplerFactor: Float {
        get { withLock { listenerLocked.dopplerFactor } }
        set {
            setListener(
                \.dopplerFactor, to: newValue, if: newValue.isFinite && newValue >= 0, recording: .dopplerFactor
            ) {
                $0.append(newValue)
            }
        }
    }

    /// The speed of sound for the Doppler shift, in metres per second
    /// (default 343.3, air at 20 °C). Values that are not finite and positive
    /// are ignored.
    public var speedOfSound: Float {
        get { withLock { listenerLocked.speedOfSound } }
        set {
            setListener(\.speedOfSound, to: newValue, if: newValue.isFinite && newValue > 0, recording: .speedOfSound) {
                $0.append(newValue)
            }
        }
    }

    /// The level, in dBFS, below which a positioned voice gives up its OpenAL
    /// source and goes virtual (default -60).
    ///
    /// At every update step after something moved or changed, each positioned
    /// voice's level is computed as OpenAL would play it: its ``Voice/volume``
    /// times its bus chain's gain, times the distance attenuation of
    /// ``distanceAttenuationParameters`` (or the voice's own) and its ``Voice/cone`` weight. Below
    /// the threshold the voice fades out and goes on silently, keeping its
    /// time (loops wrap, one-shots end and report finishing); once above it
    /// again it takes a source back at the point it would have reached. When
    /// more voices are audible than there are sources, the most important
    /// and then the most audible play. 2D and passed-through voices are never sent virtual by
    /// level. `-infinity` turns this off; NaN and values above 0 are ignored.
    public var audibilityThreshold: Float {
        get { withLock { voicePoolLocked.thresholdDecibels } }
        set {
            withLock {
                if voicePoolLocked.setThreshold(decibels: newValue) {
                    recordListenerLocked(.audibilityThreshold) { $0.append(newValue) }
                }
            }
        }
    }

    /// How far, in dB, below ``audibilityThreshold`` a virtual looping voice's
    /// level must fall before the engine stops visiting it at every update
    /// step (default 3). Such a voice sleeps in a table of points the engine
    /// checks against the listener in one pass; it wakes, and takes a source
    /// back, as soon as its level is above the threshold again. The margin
    /// keeps a voice that hovers at the threshold from being put to sleep
    /// and woken over and over; it changes nothing that is heard (a voice
    /// below the threshold is virtual either way, and a sleeping one keeps
    /// its time). NaN, negative and infinite values are ignored.
    public var audibilityMargin: Float {
        get { withLock { voicePoolLocked.marginDecibels } }
        set {
            withLock {
                if voicePoolLocked.setMargin(decibels: newValue) {
                    recordListenerLocked(.audibilityMargin) { $0.append(newValue) }
                }
            }
        }
    }

    /// Whether positioned voices are rendered through a head-related transfer
    /// function (OpenAL Soft's HRTF, for headphones): a voice's direction then
    /// sounds from around, above and behind the head, not only between the
    /// ears. Off by default. Setting it is the same as setting ``outputType``
    /// to `.headphones` (on) or `.externalSpeakers` (off); reading it says what
    /// the device does, which stays off where HRTF cannot run (output that is
    /// not stereo, no data set for its sample rate).
    public var isHRTFEnabled: Bool {
        get { withLock { device.isHRTFEnabled } }
        set { outputType = newValue ? .headphones : .externalSpeakers }
    }

    /// What the player listens on (AVAudioEnvironmentNode.outputType), which
    /// decides how positioned voices are rendered: through an HRTF on
    /// `.headphones`, by equal-power panning on speakers, and as OpenAL Soft
    /// decides on `.automatic` (HRTF when the output reports headphones, as
    /// PulseAudio does for a headset). `.externalSpeakers` by default.
    ///
    /// Changing it resets the device's renderer in place (alcResetDeviceSOFT):
    /// voices, streams and engine time carry on.
    public var outputType: AudioEnvironmentOutputType {
        get { withLock { listenerLocked.outputType } }
        set {
            withLock {
                let listener = listenerLocked
                guard listener.outputType != newValue else { return }
                recordListenerLocked(.outputType) { EffectsCaptureCoding.encode(newValue, into: &$0) }
                listener.outputType = newValue
                listener.applyHRTFLocked()
            }
        }
    }

    /// Why positioned voices are or are not rendered through an HRTF now
    /// (ALC_HRTF_STATUS_SOFT).
    public var hrtfStatus: HRTFStatus {
        withLock { HRTFStatus(device.hrtfStatus) }
    }

    /// The HRTF data sets OpenAL Soft offers the engine's output, by name
    /// (OpenAL Soft looks in its `hrtf` data directories; Debian ships
    /// `default-44100` and `default-48000`, and offers those matching the
    /// output's sample rate).
    public var hrtfDataSets: [String] { withLock { device.hrtfDataSetNames } }

    /// The HRTF data set in use, or nil while HRTF is off.
    public var hrtfDataSet: String? { withLock { device.hrtfDataSetInUse } }

    /// Chooses the HRTF data set, by one of the names in ``hrtfDataSets`` (nil
    /// for OpenAL Soft's default). It is used whenever HRTF is on, and kept
    /// for a replacement device that offers it.
    ///
    /// OpenAL Soft 1.19 loads a data set only at its own sample rate: on a
    /// 48 kHz output, `default-44100` is offered but cannot run.
    ///
    /// - Parameter name: A name from ``hrtfDataSets``; nil for OpenAL Soft's default.
    /// - Throws: `invalidArgument` for a name the output does not offer;
    ///   `unsupportedFormat` for a data set made for another sample rate. The
    ///   data set in use stays as it was.
    ///
    /// - Parameter name: A name from ``hrtfDataSets``; nil for OpenAL Soft's default.
    public func selectHRTFDataSet(named name: String?) throws {
        try withLock {
            let offered = device.hrtfDataSetNames
            if let name, !offered.contains(name) {
                let list = offered.map { "\"\($0)\"" }.joined(separator: ", ")
                throw BackbeatError(
                    .invalidArgument, operation: "selectHRTFDataSet",
                    reason: "no HRTF data set \"\(name)\" (offered: \(list.isEmpty ? "none" : list))")
            }
            let listener = listenerLocked
            let previous = listener.hrtfDataSet
            var accepted = true
            defer {
                if accepted { recordListenerLocked(.hrtfDataSet) { e in e.appendOptional(name) { $0.append($1) } } }
            }
            listener.hrtfDataSet = name
            // Only a device rendering through an HRTF shows whether the set loads.
            guard let name, listener.applyHRTFLocked() else { return }
            if device.hrtfDataSetInUse != name {
                accepted = false
                listener.hrtfDataSet = previous
                listener.applyHRTFLocked()
                throw BackbeatError(
                    .unsupportedFormat, operation: "selectHRTFDataSet",
                    reason: "HRTF data set \"\(name)\" is not for this output's \(device.sampleRate) Hz")
            }
        }
    }
}
