import BackbeatCapture
import BackbeatSession

// The session's calls in a capture: recorded where they enter the engine's
// session, before they are applied, at the engine frame they take effect.
extension AudioEngine {
    /// Has the session hand every call that changes it to the capture being
    /// written (nothing is written while none is). Called once, as the engine opens.
    func recordSessionCallsInCaptures() {
        session.setCaptureHook { [weak self] call in
            guard let self else { return }
            self.withLock(waking: false) {
                self.recordLocked(SessionCaptureValues.kind(of: call)) { SessionCaptureValues.encode(call, into: &$0) }
            }
        }
    }
}
