import BackbeatCapture
import BackbeatSession

/// How the session's calls are written into capture records and read back.
package enum SessionCaptureValues {
    /// The record kind for `call`.
    ///
    /// - Parameter call: The session call.
    /// - Returns: Its kind.
    package static func kind(of call: SessionCaptureCall) -> CaptureKind {
        switch call {
        case .category: .sessionCategory
        case .active: .sessionActive
        case .event: .sessionEvent
        case .duck: .sessionDuck
        }
    }

    /// Writes `call`'s payload.
    ///
    /// - Parameters:
    ///   - call: The session call.
    ///   - encoder: The record being written.
    package static func encode(_ call: SessionCaptureCall, into encoder: inout CaptureEncoder) {
        switch call {
        case .category(let category, let options):
            encoder.append(category.rawValue)
            encoder.append(UInt64(options.rawValue))
        case .active(let active):
            encoder.append(active)
        case .event(let event, let source):
            encoder.append(source.rawValue)
            encode(event, into: &encoder)
        case .duck(let hold, let decibels, let attack, let release):
            EngineCaptureValues.encode(hold, into: &encoder)
            encoder.append(decibels)
            EngineCaptureValues.encode(attack, into: &encoder)
            EngineCaptureValues.encode(release, into: &encoder)
        }
    }

    private static func encode(_ event: SessionEvent, into encoder: inout CaptureEncoder) {
        switch event {
        case .interruptionBegan:
            encoder.append(UInt64(0))
        case .interruptionEnded(let shouldResume):
            encoder.append(UInt64(1))
            encoder.append(shouldResume)
        case .routeChange(let reason, let previous, let current):
            encoder.append(UInt64(2))
            encoder.append(reason.rawValue)
            encoder.append(previous.name)
            encoder.append(current.name)
        case .silentSwitch(let on):
            encoder.append(UInt64(3))
            encoder.append(on)
        case .otherAudioStarted(let name):
            encoder.append(UInt64(4))
            encoder.append(name)
        case .otherAudioStopped(let name):
            encoder.append(UInt64(5))
            encoder.append(name)
        }
    }

    /// Reads the call a record of `kind` holds.
    ///
    /// - Parameters:
    ///   - kind: The record's kind, one of the session's.
    ///   - decoder: The record's decoder.
    /// - Returns: The call.
    /// - Throws: ``CaptureFormatError`` for a value no writer writes.
    package static func call(
        kind: CaptureKind, from decoder: inout CaptureDecoder
    ) throws(CaptureFormatError) -> SessionCaptureCall {
        switch kind {
        case .sessionCategory:
            let raw = try decoder.string(maximumBytes: 64)
            guard let category = AudioSession.Category(rawValue: raw) else { throw .malformed("category \(raw)") }
            let options = try decoder.uint64()
            guard options <= UInt64(UInt8.max) else { throw .malformed("category options \(options)") }
            return .category(category, AudioSession.CategoryOptions(rawValue: UInt8(options)))
        case .sessionActive:
            return .active(try decoder.bool())
        case .sessionEvent:
            let raw = try decoder.string(maximumBytes: 64)
            guard let source = SessionEventSource(rawValue: raw) else { throw .malformed("event source \(raw)") }
            return .event(try event(from: &decoder), source: source)
        case .sessionDuck:
            let hold = try EngineCaptureValues.time(from: &decoder)
            let decibels = try decoder.float()
            let attack = try EngineCaptureValues.time(from: &decoder)
            return .duck(
                hold: hold, decibels: decibels, attack: attack, release: try EngineCaptureValues.time(from: &decoder))
        default:
            throw .malformed("kind \(kind) is not a session call")
        }
    }

    private static func event(from decoder: inout CaptureDecoder) throws(CaptureFormatError) -> SessionEvent {
        let code = try decoder.uint64()
        switch code {
        case 0: return .interruptionBegan
        case 1: return .interruptionEnded(shouldResume: try decoder.bool())
        case 2:
            let raw = try decoder.string(maximumBytes: 64)
            guard let reason = RouteChangeReason(rawValue: raw) else { throw .malformed("route change reason \(raw)") }
            let previous = AudioRoute(name: try decoder.string(maximumBytes: 1_024))
            return .routeChange(
                reason: reason, previousRoute: previous,
                currentRoute: AudioRoute(name: try decoder.string(maximumBytes: 1_024)))
        case 3: return .silentSwitch(on: try decoder.bool())
        case 4: return .otherAudioStarted(name: try decoder.string(maximumBytes: 1_024))
        case 5: return .otherAudioStopped(name: try decoder.string(maximumBytes: 1_024))
        default: throw .malformed("session event \(code)")
        }
    }
}
