import BackbeatSupport

/// The files an engine's banks and sounds were loaded from, what each was
/// like when loaded, and the one inotify watcher (``FileWatcher``) that
/// follows those whose owner asks to (`reloadsWhenChanged`).
///
/// Engine time stays the only clock: the watcher's descriptor is read in
/// the update step, never waited on. An offline render checks it when it
/// starts (one `poll`), so a file written before a render is picked up at
/// that render's first update step. A device's update loop looks at least
/// ``pollsPerSecond`` times a second while anything is followed.
///
/// A change triggers a reload only when the file's fingerprint (inode, size,
/// modification time) differs from the one loaded, so an editor that saves
/// an unchanged file, or one change reported twice, reloads nothing. A change
/// during a reload reloads again once that one ends. Read and written only
/// under the engine lock.
package final class EngineFileWatch: @unchecked Sendable {
    // @unchecked: every member runs under the engine lock (they say so by name).

    /// A device's update loop reads the watcher at least this many times a
    /// second while something is followed.
    static let pollsPerSecond = 10

    private struct Entry {
        weak var owner: (any ReloadableFile)?
        let path: String
        let directory: String
        var follows: Bool
        /// The fingerprint of what is in use (nil: unknown, any file differs).
        var loaded: FileStamp?
        var reloading = false
        var changedAgain = false
    }

    private var entries: [ObjectIdentifier: Entry] = [:]
    /// The frame of the last update step (-1: none yet): a reload applied
    /// at that frame came after its step, which a capture says.
    private var lastStepFrame: Int64 = -1
    /// Work a replay asked to run right after the next update step (a reload
    /// the original applied there).
    private var afterStepWork: [() -> Void] = []
    private var watcher: FileWatcher?
    /// Following entries per watched folder.
    private var folderUse: [String: Int] = [:]
    private weak var engine: AudioEngine?

    init(engine: AudioEngine) { self.engine = engine }

    /// Whether anything is followed (the watcher is open).
    package var isFollowingLocked: Bool { !folderUse.isEmpty }

    /// Whether the watcher has changes queued (one `poll`; false when nothing is followed).
    var hasChangesLocked: Bool { watcher?.hasChanges ?? false }

    /// Records that `owner` was loaded from `path`, and whether it follows it.
    /// Calling it again for the same owner replaces what was recorded.
    ///
    /// - Parameters:
    ///   - owner: The bank or sound (held weakly).
    ///   - path: The file's absolute path.
    ///   - fingerprint: The file as it was read (nil: unknown).
    ///   - follows: Whether a change reloads it at once.
    package func registerLocked(
        _ owner: any ReloadableFile, path: String, fingerprint: FileStamp?, follows: Bool
    ) {
        engine?.preconditionLocked()
        let id = ObjectIdentifier(owner)
        let directory = Self.directory(of: path)
        var entry = Entry(owner: owner, path: path, directory: directory, follows: false, loaded: fingerprint)
        if let old = entries[id] {
            entry.reloading = old.reloading
            if old.follows { release(old.directory) }
        }
        entries[id] = entry
        setFollowsLocked(owner, follows)
    }

    /// Starts or stops following `owner`'s file (nothing if it is not registered).
    ///
    /// - Parameters:
    ///   - owner: A registered bank or sound.
    ///   - follows: Whether a change reloads it at once.
    /// - Returns: false when the folder cannot be watched (it is then not followed; the reason is logged).
    @discardableResult
    package func setFollowsLocked(_ owner: any ReloadableFile, _ follows: Bool) -> Bool {
        engine?.preconditionLocked()
        let id = ObjectIdentifier(owner)
        guard let entry = entries[id], entry.follows != follows else { return true }
        if follows {
            do {
                if watcher == nil { watcher = try FileWatcher() }
                try watcher?.watch(directory: entry.directory)
            } catch {
                engine?.logLocked(
                    .warning, "cannot follow \(entry.path): \(error)", key: "reload:\(entry.path)",
                    problem: "reloadFailed")
                return false
            }
            folderUse[entry.directory, default: 0] += 1
        } else {
            release(entry.directory)
        }
        entries[id]?.follows = follows
        return true
    }

    /// Forgets `id`'s file (an owner going away).
    ///
    /// - Parameter id: The owner's identity.
    package func unregisterLocked(_ id: ObjectIdentifier) {
        engine?.preconditionLocked()
        guard let entry = entries.removeValue(forKey: id) else { return }
        if entry.follows { release(entry.directory) }
    }

    /// Forgets the files of owners that went away.
    private func prune() {
        for (id, entry) in entries where entry.owner == nil {
            entries[id] = nil
            if entry.follows { release(entry.directory) }
        }
    }

    private func release(_ directory: String) {
        let count = (folderUse[directory] ?? 1) - 1
        if count > 0 {
            folderUse[directory] = count
            return
        }
        folderUse[directory] = nil
        watcher?.unwatch(directory: directory)
        if folderUse.isEmpty {
            watcher?.close()
            watcher = nil
        }
    }

    /// Whether the update step at the current frame has run and nothing
    /// has been mixed since: a reload taking effect now lands after that step.
    /// Always false off an offline or file output (its steps follow a clock).
    package var isAfterStepLocked: Bool {
        guard let engine else { return false }
        engine.preconditionLocked()
        return engine.device.isLoopback && lastStepFrame == engine.currentFrameLocked
    }

    /// Runs `work` with the lock held just after the next update step (which
    /// runs even if it had nothing else to do), before the frames after it
    /// are mixed: where an original reload took effect.
    ///
    /// - Parameter work: What to do.
    package func afterNextStepLocked(_ work: @escaping () -> Void) {
        guard let engine else { return }
        engine.preconditionLocked()
        afterStepWork.append(work)
        engine.stepRequested = true
    }

    /// The update step at `frame` has run its components: runs the work queued for after it.
    ///
    /// - Parameter frame: The step's frame.
    func stepRanLocked(at frame: Int64) {
        lastStepFrame = frame
        guard !afterStepWork.isEmpty else { return }
        let work = afterStepWork
        afterStepWork = []
        for item in work { item() }
    }

    /// Reads what the watcher queued and reloads each followed file that
    /// changed. Called by the update step.
    func pollLocked() {
        engine?.preconditionLocked()
        guard let watcher else { return }
        let changes = watcher.readChanges()
        guard !changes.isEmpty else { return }
        let overflowed = changes.contains(where: \.overflowed)
        let paths = Set(changes.map { ($0.directory == "/" ? "" : $0.directory) + "/" + $0.name })
        prune()
        for (id, entry) in entries where entry.follows && (overflowed || paths.contains(entry.path)) {
            trigger(id, done: nil)
        }
    }

    /// Reloads every registered file whose fingerprint changed since it was
    /// loaded, followed or not (a monitor's `reload`).
    ///
    /// - Parameter done: Called once, with the engine lock held, with one
    ///   outcome per file reloaded or failed (none when nothing changed).
    package func reloadChangedLocked(done: @escaping @Sendable ([FileReloadOutcome]) -> Void) {
        engine?.preconditionLocked()
        prune()
        let changed = entries.filter { FileStamp(path: $0.value.path) != $0.value.loaded }.map(\.key)
        guard !changed.isEmpty else { return done([]) }
        let results = LockedValueBox((left: changed.count, outcomes: [FileReloadOutcome]()))
        for id in changed {
            trigger(id) { outcome in
                let finished = results.withLockedValue { state -> [FileReloadOutcome]? in
                    if let outcome { state.outcomes.append(outcome) }
                    state.left -= 1
                    return state.left == 0 ? state.outcomes : nil
                }
                if let finished { done(finished) }
            }
        }
    }

    /// Reloads `id`'s file unless it is unchanged; `done` gets nil when
    /// nothing was reloaded (unchanged, or a reload already under way).
    private func trigger(_ id: ObjectIdentifier, done: (@Sendable (FileReloadOutcome?) -> Void)?) {
        guard let entry = entries[id], let owner = entry.owner else {
            done?(nil)
            return
        }
        guard !entry.reloading else {
            entries[id]?.changedAgain = true
            done?(nil)
            return
        }
        let now = FileStamp(path: entry.path)
        guard now == nil || now != entry.loaded else {
            done?(nil)
            return
        }
        entries[id]?.reloading = true
        owner.reloadLocked { [weak self] outcome in
            self?.finished(id, fingerprint: now, outcome)
            done?(outcome)
        }
    }

    private func finished(_ id: ObjectIdentifier, fingerprint: FileStamp?, _ outcome: FileReloadOutcome) {
        guard var entry = entries[id] else { return }
        entry.reloading = false
        if case .reloaded = outcome { entry.loaded = fingerprint }
        let again = entry.changedAgain
        entry.changedAgain = false
        entries[id] = entry
        if again { trigger(id, done: nil) }
    }

    /// Closes the watcher (the engine shuts down).
    func closeLocked() {
        watcher?.close()
        watcher = nil
        folderUse = [:]
    }

    /// The folder holding `path` ("/" for a file at the root).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
