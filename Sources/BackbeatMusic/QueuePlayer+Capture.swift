import BackbeatCapture
import BackbeatEngine

// A queue player in a capture: declared with its queue's items, each
// declared first with its asset.
extension QueuePlayer: CapturedMusicPlayer {
    func captureIDLocked() -> UInt32? {
        guard let engine = core.engine, engine.captureRecorder != nil else { return nil }
        if isDeclaredLocked { return captureTag.id }
        let itemIDs = machine.keys.compactMap { $0.captureIDLocked(engine) }
        return declareLocked(engine, .queuePlayerDeclare) { encoder in
            encoder.append(UInt64(itemIDs.count))
            for id in itemIDs { encoder.append(id) }
        }
    }

    /// Records a record about `item` in this queue (its id after the player's).
    func recordItemLocked(_ kind: CaptureKind, _ item: PlayerItem) {
        guard let engine = core.engine, engine.captureRecorder != nil, let itemID = item.captureIDLocked(engine)
        else { return }
        record(kind) { $0.append(itemID) }
    }

    /// Records an insert that succeeded (a player the capture declares now
    /// is declared with the item already in its queue).
    func recordInsertLocked(_ item: PlayerItem, after afterItem: PlayerItem?) {
        guard let engine = core.engine, engine.captureRecorder != nil, isDeclaredLocked,
            let itemID = item.captureIDLocked(engine)
        else {
            _ = captureIDLocked()
            return
        }
        let afterID = afterItem.flatMap { $0.captureIDLocked(engine) } ?? 0
        record(.queueInsert) { encoder in
            encoder.append(itemID)
            encoder.append(afterID)
        }
    }

    /// Records ``actionAtItemEnd`` set.
    func recordActionLocked(_ action: ActionAtItemEnd) {
        let code: UInt64 =
            switch action {
            case .advance: 0
            case .pause: 1
            case .none: 2
            }
        record(.queueActionAtItemEnd) { $0.append(code) }
    }
}
