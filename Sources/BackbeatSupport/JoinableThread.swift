#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread that can be joined, which Foundation's `Thread` cannot: the
/// engine's real-time thread. Its owner joins it when it stops it, or, when
/// the owner is on the thread itself (a handler that shuts the engine down),
/// detaches it, since a thread cannot join itself.
package final class JoinableThread: Sendable {
    /// The thread's id (written by both threads, the same value) and whether
    /// it was joined or detached.
    private let identity = LockedValueBox<(id: pthread_t?, released: Bool)>((nil, false))

    private let name: String
    private let body: @Sendable () -> Void

    /// A thread named `name` (at most 15 bytes show) that will run `body`
    /// once ``start()`` is called.
    package init(name: String, _ body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    /// Starts the thread. Call it once.
    package func start() {
        let start = Unmanaged.passRetained(Start(name: name, body: body, identity: identity))
        var thread = pthread_t()
        let error = pthread_create(
            &thread, nil,
            { argument in
                let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
                start.identity.withLockedValue { $0.id = pthread_self() }
                setCurrentThreadName(start.name)
                start.body()
                return nil
            }, start.toOpaque())
        precondition(error == 0, "pthread_create failed: \(error)")
        identity.withLockedValue { $0.id = thread }
    }

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        let identity: LockedValueBox<(id: pthread_t?, released: Bool)>
        init(
            name: String, body: @escaping @Sendable () -> Void,
            identity: LockedValueBox<(id: pthread_t?, released: Bool)>
        ) {
            self.name = String(name.utf8.prefix(15)) ?? "Backbeat"
            self.body = body
            self.identity = identity
        }
    }

    deinit {
        // Never joined: let the thread end on its own rather than leak it.
        let (id, released) = identity.withLockedValue { ($0.id, $0.released) }
        if let id, !released { pthread_detach(id) }
    }

    /// Whether the calling thread is this thread.
    package var isCurrent: Bool {
        identity.withLockedValue { $0.id.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Waits for the thread to end, or, called on the thread itself, lets it
    /// end on its own (detached). Only the first call does anything.
    package func joinUnlessCurrent() {
        let (id, alreadyReleased) = identity.withLockedValue { state in
            defer { state.released = true }
            return (state.id, state.released)
        }
        guard let id, !alreadyReleased else { return }
        if pthread_equal(id, pthread_self()) != 0 {
            pthread_detach(id)
        } else {
            let error = pthread_join(id, nil)
            precondition(error == 0, "pthread_join failed: \(error)")
        }
    }
}

/// Names the calling thread for debuggers and `top -H` (pthread_setname_np
/// needs _GNU_SOURCE, which Swift's Glibc module does not define).
private func setCurrentThreadName(_ name: String) {
    let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard file >= 0 else { return }
    _ = name.withCString { write(file, $0, strlen($0)) }
    close(file)
}
