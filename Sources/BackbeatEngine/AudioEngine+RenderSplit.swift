import BackbeatCapture

extension AudioEngine {
    /// Writes a render-split record when an offline or file render call ended
    /// between two update steps and a capture is on. OpenAL ramps a change
    /// over the mix call that follows it, so a render split there, while a
    /// fade runs, gives other samples than one split elsewhere: the replay
    /// splits its own render at the same frame.
    func recordRenderSplit() {
        withLock(waking: false) {
            if framesRendered != nextUpdateFrame { recordLocked(.renderSplit) { _ in } }
        }
    }
}
