import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
import BackbeatSupport
#endif

/// A benchmark could not measure: its reference tool is missing, or a side failed.
package struct BenchError: Error, CustomStringConvertible {
    /// What went wrong, in one line.
    package let description: String
    init(_ description: String) { self.description = description }
}

/// Runs async work from the synchronous bench, on the global executor, and waits for it.
func blocking(_ body: @escaping @Sendable () async throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let failure = FailureBox()
    Task.detached {
        do { try await body() } catch { failure.set(error) }
        done.signal()
    }
    done.wait()
    if let error = failure.error { throw error }
}

/// Hands an error from the detached task to the waiting thread.
final class FailureBox: @unchecked Sendable {
    // Safe: every access goes through `lock`, and the semaphore orders the write before the read.
    private let lock = Lock()
    private var stored: (any Error)?
    func set(_ e: any Error) {
        lock.lock()
        stored = e
        lock.unlock()
    }
    var error: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// This executable's path.
func selfPath() throws -> String {
    guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
        throw BenchError("cannot find the backbeat executable")
    }
    return path
}

/// Spawns a program with stdout and stderr sent to /dev/null and `environment`
/// added to this process's, waits, and returns its status and resource usage
/// (wait4; its `ru_maxrss` is not the child's own: see ``ChildPeakMemory``).
///
/// - Parameters:
///   - path: the program.
///   - arguments: its arguments, after its name.
///   - environment: variables set for it, over this process's.
///   - whileRunning: called with its process id once it started, before the wait.
func spawn(
    _ path: String, _ arguments: [String], environment: [String: String] = [:],
    whileRunning: (pid_t) -> Void = { _ in }
) throws -> (status: Int32, usage: rusage) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var inherited: [String] = []
    var entry = environ
    while let variable = entry.pointee {
        let text = String(cString: variable)
        if !environment.keys.contains(where: { text.hasPrefix($0 + "=") }) { inherited.append(text) }
        entry += 1
    }
    let envp: [UnsafeMutablePointer<CChar>?] =
        (inherited + environment.map { "\($0.key)=\($0.value)" }).map { strdup($0) } + [nil]
    defer { for pointer in envp { free(pointer) } }
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, path, &actions, nil, argv, envp)
    guard rc == 0 else { throw BenchError("cannot start \(path): \(String(cString: strerror(rc)))") }
    whileRunning(pid)
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
        guard errno == EINTR else { throw BenchError("wait4 failed: \(String(cString: strerror(errno)))") }
    }
    let exited = (status & 0x7F) == 0
    return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), usage)
}

/// A thread that keeps one core busy until stopped: the load the stream and
/// device suites measure under.
final class BusyThread: Sendable {
    private let stopped = Atomic<Bool>(false)

    init() {
        Thread { [self] in
            var x: UInt64 = 1
            while !stopped.load(ordering: .relaxed) { for _ in 0..<10_000 { x = x &* 6_364_136_223_846_793_005 &+ 1 } }
            if x == 42 { print("") }  // keeps the loop from being optimized away
        }.start()
    }

    /// Lets the thread end (idempotent).
    func stop() { stopped.store(true, ordering: .relaxed) }
}
