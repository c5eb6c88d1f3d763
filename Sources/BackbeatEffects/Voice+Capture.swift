import BackbeatCapture
import BackbeatEngine
import BackbeatMedia

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Voice {
    /// Records a call on the voice (``CaptureKind/effectsVoiceChange``) with
    /// its arguments, when a capture is on. With the engine lock held.
    ///
    /// - Parameters:
    ///   - change: What the call was.
    ///   - arguments: Writes its arguments as the game gave them.
    func recordLocked(_ change: VoiceChange, _ arguments: (inout CaptureEncoder) -> Void = { _ in }) {
        guard let engine, engine.captureRecorder != nil else { return }
        engine.recordLocked(.effectsVoiceChange) { encoder in
            encoder.append(id.raw)
            encoder.appendFixed(change.rawValue)
            arguments(&encoder)
        }
    }

    /// Records a game-parameter binding: the parameter's name and the curve (as JSON).
    func recordBindingLocked(_ change: VoiceChange, _ parameter: GameParameter, _ curve: ParameterCurve) {
        guard engine?.captureRecorder != nil else { return }
        let json = (try? JSONEncoder().encode(curve)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        recordLocked(change) { encoder in
            encoder.append(parameter.name)
            encoder.append(json)
        }
    }
}
