import BackbeatEngine

extension Voice {
    /// Positioned and rendered in the world (not passed through): what can go virtual by audibility.
    var isPlacedInWorld: Bool { positionValue != nil && renderingValue != .stereoPassThrough }

    /// Whether the voice holds a source or is about to get one.
    var holdsOrAwaitsSource: Bool {
        switch phase {
        case .playing, .pausing, .paused, .scheduled, .waitingForSource, .waitingForLoad: true
        case .stopping, .virtual, .finished: false
        }
    }
}
