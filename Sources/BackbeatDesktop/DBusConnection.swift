import BackbeatEngine
import BackbeatSupport
import CDBus
import Dispatch
import Foundation

/// A private connection to a D-Bus bus, served by its own thread.
///
/// Every libdbus call on the connection happens on that thread: callers hand it
/// jobs. Method calls have a deadline the thread enforces itself, so a peer that
/// never answers costs a bounded wait and a typed error. Signal handlers and
/// exported objects run on the thread; they must not block on the connection.
///
/// Call ``close()`` when done: the thread keeps the connection alive until then.
final class DBusConnection: @unchecked Sendable {
    // Safe to share: `raw` and `pending` are used only on the connection's thread
    // (and by `open` before the thread starts); everything else is behind `shared`.
    private let raw: OpaquePointer
    /// The bus address this connection reached.
    let address: String
    private var pending: [Pending] = []
    private let finished = DispatchSemaphore(value: 0)

    private struct Pending {
        let handle: OpaquePointer
        let deadline: ContinuousClock.Instant
        let call: String
        let completion: @Sendable (Result<[DBusValue], BackbeatError>) -> Void
    }

    private struct Shared {
        var jobs: [@Sendable () -> Void] = []
        var running = true
        var uniqueName = ""
        /// The serving thread, once it runs.
        var thread: pthread_t?
        var exports: [String: @Sendable (DBusMessage) -> DBusReply] = [:]
        var disconnectHandlers: [@Sendable () -> Void] = []
    }
    private let shared = LockedValueBox(Shared())
    /// The observers of signals (see ``observeSignals(_:)``).
    private let signals = EventBroadcast<DBusMessage>()

    /// How long the thread waits for input before looking at its jobs again.
    private static let tickMilliseconds: Int32 = 10

    private init(raw: OpaquePointer, address: String) {
        self.raw = raw
        self.address = address
    }

    // MARK: Opening and closing

    /// The session bus address from the environment, if any.
    static func sessionBusAddress(in environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty else { return nil }
        return address
    }

    /// Connects to the bus at `address` and registers with it.
    ///
    /// - Throws: ``BackbeatError/Code/noDesktopBus`` when the address cannot be
    ///   reached or the bus does not answer within `timeout`.
    static func open(address: String, timeout: Duration = .seconds(5)) throws -> DBusConnection {
        _ = dbus_threads_init_default()
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let raw = dbus_connection_open_private(address, &error) else {
            let reason = dbus_error_is_set(&error) != 0 ? error.message.map { String(cString: $0) } : nil
            throw BackbeatError(.noDesktopBus, operation: "connect to the desktop bus", reason: reason)
        }
        dbus_connection_set_exit_on_disconnect(raw, 0)
        let connection = DBusConnection(raw: raw, address: address)
        connection.start()
        do {
            let reply = try connection.call(.bus("Hello"), timeout: timeout)
            guard let name = reply.first?.string else {
                throw BackbeatError(.noDesktopBus, operation: "Hello", reason: "the bus gave no unique name")
            }
            connection.shared.withLockedValue { $0.uniqueName = name }
        } catch let error as BackbeatError {
            connection.close()
            throw BackbeatError(.noDesktopBus, operation: "register on the desktop bus", reason: error.description)
        }
        return connection
    }

    /// The name the bus gave this connection, such as `:1.42`.
    var uniqueName: String { shared.withLockedValue { $0.uniqueName } }

    /// Whether the thread still serves the connection.
    var isOpen: Bool { shared.withLockedValue { $0.running } }

    private func start() {
        let raw = self.raw
        let filter: DBusHandleMessageFunction = { _, message, userData in
            guard let message, let userData else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
            return Unmanaged<DBusConnection>.fromOpaque(userData).takeUnretainedValue().handle(message)
        }
        _ = dbus_connection_add_filter(raw, filter, Unmanaged.passUnretained(self).toOpaque(), nil)
        let thread = Thread { [self] in
            shared.withLockedValue { $0.thread = pthread_self() }
            run()
        }
        thread.name = "backbeat.dbus"
        thread.start()
    }

    /// Stops the thread, fails the calls still waiting, and closes the connection.
    /// Waits for the thread unless called on it.
    func close() {
        shared.withLockedValue { $0.running = false }
        if !isOnThread {
            finished.wait()
            finished.signal()
        }
    }

    /// Whether the caller runs on the connection's thread.
    var isOnThread: Bool {
        shared.withLockedValue { s in s.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Called once, on the connection's thread, when the bus goes away.
    func onDisconnect(_ handler: @escaping @Sendable () -> Void) {
        shared.withLockedValue { $0.disconnectHandlers.append(handler) }
    }

    // MARK: The thread

    private func run() {
        var alive = true
        while true {
            let (jobs, running) = shared.withLockedValue { s in
                defer { s.jobs = [] }
                return (s.jobs, s.running)
            }
            for job in jobs { job() }
            guard running, alive else { break }
            alive = dbus_connection_read_write_dispatch(raw, Self.tickMilliseconds) != 0
            settlePending(now: .now)
        }
        let (jobs, handlers) = shared.withLockedValue { s in
            s.running = false
            defer {
                s.jobs = []
                s.disconnectHandlers = []
            }
            return (s.jobs, s.disconnectHandlers)
        }
        for job in jobs { job() }
        // What was sent last (a Play that gives a paused player back, as the
        // game ends) leaves before the connection closes.
        if alive { dbus_connection_flush(raw) }
        for call in pending {
            dbus_pending_call_cancel(call.handle)
            dbus_pending_call_unref(call.handle)
            call.completion(
                .failure(BackbeatError(.noDesktopBus, operation: call.call, reason: "the connection closed")))
        }
        pending = []
        if !alive { for handler in handlers { handler() } }
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
        finished.signal()
    }

    /// Runs `job` on the thread, or `otherwise` at once if the connection is closed.
    private func submit(_ job: @escaping @Sendable () -> Void, otherwise: () -> Void) {
        let accepted = shared.withLockedValue { s -> Bool in
            guard s.running else { return false }
            s.jobs.append(job)
            return true
        }
        if !accepted { otherwise() }
    }

    private func settlePending(now: ContinuousClock.Instant) {
        guard !pending.isEmpty else { return }
        var waiting: [Pending] = []
        for call in pending {
            if dbus_pending_call_get_completed(call.handle) != 0 {
                let reply = dbus_pending_call_steal_reply(call.handle)
                dbus_pending_call_unref(call.handle)
                guard let reply else {
                    call.completion(
                        .failure(BackbeatError(.desktopCallFailed, operation: call.call, reason: "no reply")))
                    continue
                }
                let message = DBusCodec.decode(reply)
                dbus_message_unref(reply)
                if message.kind == .error {
                    let reason = [message.errorName, message.errorMessage].compactMap { $0 }.joined(separator: ": ")
                    // NoReply here is the bus saying the peer left without answering:
                    // our own deadline, not libdbus's, decides time-outs.
                    call.completion(.failure(BackbeatError(.desktopCallFailed, operation: call.call, reason: reason)))
                } else {
                    call.completion(.success(message.body))
                }
            } else if now >= call.deadline {
                dbus_pending_call_cancel(call.handle)
                dbus_pending_call_unref(call.handle)
                call.completion(
                    .failure(BackbeatError(.desktopCallTimedOut, operation: call.call, reason: "no answer in time")))
            } else {
                waiting.append(call)
            }
        }
        pending = waiting
    }

    // MARK: Calls

    /// Calls a method and hands the reply's body, or a typed error, to `completion`
    /// on the connection's thread. Never blocks; safe from any thread.
    func callAsync(
        _ call: DBusCall, timeout: Duration = .seconds(2),
        completion: @escaping @Sendable (Result<[DBusValue], BackbeatError>) -> Void
    ) {
        let name = call.description
        guard dbus_validate_bus_name(call.destination, nil) != 0, dbus_validate_path(call.path, nil) != 0,
            dbus_validate_interface(call.interface, nil) != 0, dbus_validate_member(call.member, nil) != 0
        else {
            completion(
                .failure(BackbeatError(.invalidArgument, operation: name, reason: "not a valid D-Bus name or path")))
            return
        }
        submit(
            { [self] in
                guard
                    let message = dbus_message_new_method_call(call.destination, call.path, call.interface, call.member)
                else {
                    completion(.failure(BackbeatError(.desktopCallFailed, operation: name, reason: "out of memory")))
                    return
                }
                defer { dbus_message_unref(message) }
                guard DBusCodec.append(call.arguments, to: message) else {
                    completion(
                        .failure(BackbeatError(.invalidArgument, operation: name, reason: "malformed arguments")))
                    return
                }
                var handle: OpaquePointer?
                let milliseconds = Int32(
                    clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
                )
                guard dbus_connection_send_with_reply(raw, message, &handle, milliseconds) != 0, let handle else {
                    completion(
                        .failure(BackbeatError(.noDesktopBus, operation: name, reason: "the connection is closed")))
                    return
                }
                pending.append(Pending(handle: handle, deadline: .now + timeout, call: name, completion: completion))
            },
            otherwise: {
                completion(.failure(BackbeatError(.noDesktopBus, operation: name, reason: "the connection is closed")))
            })
    }

    /// Calls a method and waits for its reply, at most `timeout` (plus a margin
    /// for the thread itself).
    ///
    /// - Throws: ``BackbeatError/Code/desktopCallTimedOut``, ``BackbeatError/Code/desktopCallFailed``
    ///   with the peer's error, or ``BackbeatError/Code/noDesktopBus``.
    func call(_ call: DBusCall, timeout: Duration = .seconds(2)) throws -> [DBusValue] {
        precondition(!isOnThread, "a blocking D-Bus call on the connection's own thread would wait for itself")
        let box = LockedValueBox<Result<[DBusValue], BackbeatError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        callAsync(call, timeout: timeout) { result in
            box.withLockedValue { $0 = result }
            done.signal()
        }
        let margin = DispatchTime.now() + .nanoseconds(Int(timeout.components.seconds) * 1_000_000_000 + 1_000_000_000)
        guard done.wait(timeout: margin) == .success, let result = box.withLockedValue({ $0 }) else {
            throw BackbeatError(
                .desktopCallTimedOut, operation: call.description, reason: "the connection's thread did not answer")
        }
        return try result.get()
    }

    /// Asks the bus to deliver signals matching `rule` to this connection.
    func addMatch(_ rule: String) throws {
        _ = try call(.bus("AddMatch", [.string(rule)]))
    }

    // MARK: Signals and exported objects

    /// Sends a signal, to every peer whose match rules take it or, with
    /// `destination`, to that one peer. Never blocks; a malformed signal is dropped.
    func emitSignal(path: String, interface: String, member: String, arguments: [DBusValue], destination: String? = nil)
    {
        guard dbus_validate_path(path, nil) != 0, dbus_validate_interface(interface, nil) != 0,
            dbus_validate_member(member, nil) != 0,
            destination.map({ dbus_validate_bus_name($0, nil) != 0 }) ?? true
        else { return }
        submit(
            { [self] in
                guard let message = dbus_message_new_signal(path, interface, member) else { return }
                defer { dbus_message_unref(message) }
                if let destination { _ = dbus_message_set_destination(message, destination) }
                if DBusCodec.append(arguments, to: message) { _ = dbus_connection_send(raw, message, nil) }
            }, otherwise: {})
    }

    /// Calls `handler` on the connection's thread with every signal the bus
    /// delivers (see ``addMatch(_:)``), until the returned token is cancelled.
    @discardableResult
    func observeSignals(_ handler: @escaping @Sendable (DBusMessage) -> Void) -> ObservationToken {
        signals.observe(handler)
    }

    /// Answers method calls to `path` with `handler`, on the connection's thread.
    /// The handler must answer at once.
    func export(path: String, _ handler: @escaping @Sendable (DBusMessage) -> DBusReply) {
        shared.withLockedValue { $0.exports[path] = handler }
    }

    func unexport(path: String) {
        _ = shared.withLockedValue { $0.exports.removeValue(forKey: path) }
    }

    /// Called by libdbus's dispatch, on the thread.
    private func handle(_ message: OpaquePointer) -> DBusHandlerResult {
        let decoded = DBusCodec.decode(message)
        switch decoded.kind {
        case .signal:
            signals.send(decoded)
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        case .methodCall:
            guard let path = decoded.path, let handler = shared.withLockedValue({ $0.exports[path] }) else {
                return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
            }
            let reply = handler(decoded)
            if dbus_message_get_no_reply(message) == 0 { send(reply, to: message) }
            return DBUS_HANDLER_RESULT_HANDLED
        default:
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
    }

    private func send(_ reply: DBusReply, to call: OpaquePointer) {
        var answer: OpaquePointer?
        switch reply {
        case .values(let values):
            answer = dbus_message_new_method_return(call)
            if let message = answer, !DBusCodec.append(values, to: message) {
                dbus_message_unref(message)
                answer = dbus_message_new_error(call, "org.freedesktop.DBus.Error.Failed", "malformed reply")
            }
        case .error(let name, let text):
            let valid = dbus_validate_error_name(name, nil) != 0
            answer = dbus_message_new_error(call, valid ? name : "org.freedesktop.DBus.Error.Failed", text)
        case .noReply:
            return
        }
        guard let answer else { return }
        _ = dbus_connection_send(raw, answer, nil)
        dbus_message_unref(answer)
    }
}
