import BackbeatCapture
import BackbeatEngine
import BackbeatSession

extension Replayer {
    /// Applies a record of ``CaptureKind/sessionRange``: the same call on the
    /// replay engine's session, at the same engine frame.
    ///
    /// - Parameter record: The record.
    /// - Throws: When its payload does not decode or the call it replays fails.
    func applySession(_ record: CaptureRecord) throws {
        switch record.kind {
        case .sessionCategory, .sessionActive, .sessionEvent, .sessionDuck:
            var decoder = record.decoder
            let call: SessionCaptureCall
            do { call = try SessionCaptureValues.call(kind: record.kind, from: &decoder) } catch {
                throw damaged(record, error)
            }
            let session = engine.session
            switch call {
            case .category(let category, let options):
                try session.setCategory(category, options: options)
                note("session \(category)")
            case .active(let active):
                session.setActive(active)
                note(active ? "session active" : "session inactive")
            case .event(let event, let source):
                session.post(event, source: source, at: engine.currentTime)
                note(event.description)
            case .duck(let hold, let decibels, let attack, let release):
                try session.duck(music: hold, by: decibels, attack: attack, release: release)
                note("session duck")
            }
        default: skipUnknown(record)
        }
    }
}
