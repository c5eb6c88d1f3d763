/// Something a layer above the engine loaded from a file and can load again
/// while the game runs: a sound bank, a sound decoded from a file. It tells
/// the engine's ``EngineFileWatch`` which file it came from; the watch calls
/// it when the file changed (followed through inotify, or on a monitor's
/// `reload` command).
package protocol ReloadableFile: AnyObject {
    /// Starts loading the file again, with the engine lock held, without
    /// blocking (the reading and decoding run elsewhere). What was loaded
    /// stays in use until the new content is ready, and stays for good if
    /// it does not load.
    ///
    /// - Parameter done: Called exactly once, with the engine lock held,
    ///   with one line saying what was reloaded or why it was not.
    func reloadLocked(done: @escaping @Sendable (FileReloadOutcome) -> Void)
}

/// How one reload went, in one line for a person (and a monitor).
package enum FileReloadOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The new content is in use; the line names the file and what changed.
    case reloaded(String)
    /// The old content stays; the line names the file, where, and why.
    case failed(String)

    /// The line.
    package var description: String {
        switch self {
        case .reloaded(let line), .failed(let line): line
        }
    }
}
