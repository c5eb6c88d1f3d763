extension AudioEngine {
    /// The engine's one `T`, made by `make` on first use: per-engine state
    /// that a layer above the engine owns (the effects' voice pool and sound
    /// cache), kept for as long as the engine lives. The engine holds it
    /// strongly and never looks inside. Called with the lock held.
    package func attachmentLocked<T: AnyObject>(_ type: T.Type = T.self, make: () -> T) -> T {
        let key = ObjectIdentifier(type)
        if let existing = attachments[key] as? T { return existing }
        let made = make()
        attachments[key] = made
        return made
    }

    /// The engine's `T` if one was made, without making it; with the lock held.
    package func existingAttachmentLocked<T: AnyObject>(_ type: T.Type = T.self) -> T? {
        attachments[ObjectIdentifier(type)] as? T
    }
}
