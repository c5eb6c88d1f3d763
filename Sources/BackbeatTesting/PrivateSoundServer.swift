#if canImport(Glibc)
import Glibc
import BackbeatSupport

extension BackbeatError.Code {
    /// The private sound server could not be started, reached or stopped.
    public static let soundServerFailed = Self("sound server failed")
}

/// A private PulseAudio server for tests that play through a real sound
/// device on a machine with or without a sound card.
///
/// It runs `pulseaudio` as a child of the calling process, with a runtime
/// directory of its own (no system bus, no default modules, no idle exit,
/// anonymous access on a socket in that directory). Each sink is a
/// `module-null-sink` whose description is its name (OpenAL names devices by
/// description, so names are unique; its monitor, a capture device, is
/// described, and so named, `<sink>.monitor`), kept awake by a silent low-latency
/// loopback so that the first stream starts at once and reports a real
/// latency. The first sink is the default. It works as root.
///
/// A process's OpenAL picks its backends once, at its first ALC call: start
/// the server (and ``exportEnvironment()``) before anything in the process
/// touches OpenAL, or run the scene in a child process with ``environment``.
///
/// ```swift
/// let server = try PrivateSoundServer(sinks: ["game"])
/// defer { server.stop() }
/// let recording = try server.recordMonitor(of: "game")
/// // … play through the server from a child process with server.environment …
/// let samples = try recording.stop()   // interleaved stereo float, 48 kHz
/// ```
public final class PrivateSoundServer: Sendable {
    /// The rate of the sinks and of monitor recordings.
    public static let sampleRate = 48000
    /// Channels of a monitor recording (interleaved).
    public static let channels = 2

    /// The server's runtime directory (socket, cookie, log); removed by ``stop()``.
    public let directory: String
    /// The sink names: those the server started with (the first was the
    /// default), then those added by ``addSink(_:)``. Each is also its
    /// device description.
    public var sinks: [String] { state.withLockedValue { $0.sinks } }

    private let state = LockedValueBox(State())

    private struct State {
        var daemon: pid_t?
        var sinks: [String] = []
        var removed = false
        var counter = 0
    }

    /// Starts a server with these null sinks (the first is the default) and
    /// waits until it answers and every sink is awake.
    ///
    /// - Parameters:
    ///   - sinks: The null sinks' names, the default first.
    ///   - timeout: Seconds to wait for the server and every sink.
    /// - Throws: ``BackbeatError`` `.invalidArgument` for no sinks, a
    ///   duplicate name, or a name with characters other than letters,
    ///   digits, `-`, `_` and `.`; `.soundServerFailed` when `pulseaudio`
    ///   cannot be started or does not become ready within `timeout` seconds.
    public init(sinks: [String] = ["backbeat"], timeout: Double = 10) throws {
        guard !sinks.isEmpty else {
            throw BackbeatError(.invalidArgument, operation: "PrivateSoundServer", reason: "no sinks")
        }
        for sink in sinks { try Self.checkSinkName(sink, operation: "PrivateSoundServer") }
        guard Set(sinks).count == sinks.count else {
            throw BackbeatError(.invalidArgument, operation: "PrivateSoundServer", reason: "duplicate sink names")
        }
        state.withLockedValue { $0.sinks = sinks }
        var template = Array("/tmp/backbeat-pulse-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw BackbeatError(.soundServerFailed, operation: "mkdtemp", reason: String(cString: strerror(errno)))
        }
        directory = String(cString: made)
        chmod(directory, 0o700)
        do {
            try writeStartupScript()
            try start(timeout: timeout)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// The client's address, for `PULSE_SERVER`.
    public var serverAddress: String { "unix:\(directory)/native" }

    /// What a client process needs in its environment to use this server.
    public var environment: [String: String] {
        ["PULSE_SERVER": serverAddress, "PULSE_COOKIE": "\(directory)/cookie"]
    }

    /// Sets ``environment`` in this process, so that OpenAL opened from now
    /// on (and every child) uses this server.
    public func exportEnvironment() {
        for (key, value) in environment { setenv(key, value, 1) }
    }

    /// Whether the daemon is running (not stopped, killed or exited).
    public var isRunning: Bool {
        state.withLockedValue { state in
            guard let pid = state.daemon else { return false }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                state.daemon = nil
                return false
            }
            return true
        }
    }

    /// Starts the daemon again at the same socket, after ``kill(signal:)``:
    /// what a user's server coming back looks like to a client.
    ///
    /// - Parameter timeout: Seconds to wait for it to answer.
    /// - Throws: ``BackbeatError`` `.soundServerFailed` when it does not start or answer in time.
    public func restart(timeout: Double = 10) throws {
        guard !isRunning else { return }
        try start(timeout: timeout)
    }

    /// Sends `signal` to the daemon. `SIGKILL` and `SIGTERM` end it (it is
    /// reaped here); `SIGSTOP` freezes it until `SIGCONT`.
    ///
    /// - Parameter signal: The signal to send, such as `SIGKILL` or `SIGSTOP`.
    public func kill(signal: Int32 = SIGKILL) {
        state.withLockedValue { state in
            guard let pid = state.daemon else { return }
            _ = Glibc.kill(pid, signal)
            if signal == SIGKILL || signal == SIGTERM {
                if signal == SIGTERM { _ = Glibc.kill(pid, SIGCONT) }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                state.daemon = nil
            }
        }
    }

    /// Stops the daemon (SIGTERM, then waits for it) and removes its
    /// directory. Safe to call more than once.
    public func stop() {
        kill(signal: SIGTERM)
        let remove = state.withLockedValue { state -> Bool in
            defer { state.removed = true }
            return !state.removed
        }
        if remove,
            let pid = try? Self.spawn(
                ["rm", "-rf", directory], environment: Self.currentEnvironment(),
                output: "/dev/null")
        {
            _ = Self.wait(pid, timeout: 10)
        }
    }

    /// Runs `pactl` against this server and returns its standard output.
    ///
    /// - Parameters:
    ///   - arguments: pactl's arguments, such as `"list", "sinks"`.
    ///   - timeout: Seconds before pactl counts as hung.
    /// - Returns: What pactl printed.
    /// - Throws: ``BackbeatError`` `.soundServerFailed` when pactl fails or
    ///   takes longer than `timeout` seconds (a frozen server).
    @discardableResult
    public func pactl(_ arguments: String..., timeout: Double = 10) throws -> String {
        try pactl(arguments, timeout: timeout)
    }

    /// Runs `pactl` against this server and returns its standard output.
    ///
    /// - Parameters:
    ///   - arguments: pactl's arguments, such as `["list", "sinks"]`.
    ///   - timeout: Seconds before pactl counts as hung.
    /// - Returns: What pactl printed.
    /// - Throws: as ``pactl(_:timeout:)-(String...,_)``.
    @discardableResult
    public func pactl(_ arguments: [String], timeout: Double = 10) throws -> String {
        let output = scratchFile("pactl")
        defer { unlink(output) }
        let pid = try Self.spawn(["pactl"] + arguments, environment: clientEnvironment(), output: output)
        let status = Self.wait(pid, timeout: timeout)
        let text = Self.read(output) ?? ""
        guard status == 0 else {
            let reason =
                status == nil ? "timed out" : (text.split(separator: "\n").first.map(String.init) ?? "exit \(status!)")
            throw BackbeatError(
                .soundServerFailed, operation: "pactl \(arguments.joined(separator: " "))", reason: reason)
        }
        return text
    }

    /// Adds a null sink while the server runs (a device plugged in), kept
    /// awake like the others, and returns once it is awake. It does not
    /// become the default: ``setDefaultSink(_:)`` does that. A restarted
    /// server has it too.
    ///
    /// - Parameters:
    ///   - sink: The new sink's name.
    ///   - timeout: Seconds to wait for it to be awake.
    /// - Throws: ``BackbeatError`` `.invalidArgument` for a bad or taken
    ///   name; `.soundServerFailed` when the server refuses it or it is not
    ///   awake within `timeout` seconds.
    public func addSink(_ sink: String, timeout: Double = 10) throws {
        try Self.checkSinkName(sink, operation: "addSink")
        guard !sinks.contains(sink) else {
            throw BackbeatError(.invalidArgument, operation: "addSink", reason: "sink '\(sink)' exists")
        }
        try pactl(Self.nullSinkModule(sink).split(separator: " ").map(String.init))
        try pactl(Self.keepAwakeModule(sink).split(separator: " ").map(String.init))
        let count = state.withLockedValue { state -> Int in
            state.sinks.append(sink)
            return state.sinks.count
        }
        try writeStartupScript()
        let deadline = Self.now() + timeout
        while true {
            if let listing = try? pactl(["list", "sinks"], timeout: 2), Self.awakeSinks(in: listing) >= count {
                return
            }
            guard Self.now() < deadline else {
                throw BackbeatError(
                    .soundServerFailed, operation: "addSink \(sink)", reason: "not awake after \(timeout) s")
            }
            Self.sleep(milliseconds: 10)
        }
    }

    /// Makes `sink` the server's default output.
    ///
    /// - Parameter sink: One of the server's sinks.
    /// - Throws: ``BackbeatError`` `.invalidArgument` for a sink it does not have; `.soundServerFailed` when pactl fails.
    public func setDefaultSink(_ sink: String) throws {
        guard sinks.contains(sink) else {
            throw BackbeatError(.invalidArgument, operation: "setDefaultSink", reason: "no sink '\(sink)'")
        }
        try pactl("set-default-sink", sink)
    }

    /// The server's current default sink.
    public func defaultSink() throws -> String {
        String(try pactl("get-default-sink").split(whereSeparator: \.isWhitespace).first ?? "")
    }

    /// Starts recording what `sink` plays (its monitor), as interleaved
    /// stereo float at 48 kHz, and returns once samples are arriving.
    ///
    /// - Parameters:
    ///   - sink: One of the server's sinks.
    ///   - timeout: Seconds to wait for the first samples.
    /// - Returns: The recording, running until it is stopped.
    /// - Throws: ``BackbeatError`` `.invalidArgument` for a sink it does not have; `.soundServerFailed` when recording does not start in time.
    public func recordMonitor(of sink: String, timeout: Double = 10) throws -> MonitorRecording {
        guard sinks.contains(sink) else {
            throw BackbeatError(.invalidArgument, operation: "recordMonitor", reason: "no sink '\(sink)'")
        }
        let file = scratchFile("monitor")
        let pid = try Self.spawn(
            [
                "parec", "--device=\(sink).monitor", "--format=float32le", "--rate=\(Self.sampleRate)",
                "--channels=\(Self.channels)", "--latency-msec=5", "--raw",
            ],
            environment: clientEnvironment(), output: file)
        let recording = MonitorRecording(pid: pid, file: file)
        let deadline = Self.now() + timeout
        while Self.fileSize(file) == 0 {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid || Self.now() > deadline {
                _ = try? recording.stop()
                throw BackbeatError(
                    .soundServerFailed, operation: "parec \(sink).monitor", reason: "no samples arrived")
            }
            Self.sleep(milliseconds: 2)
        }
        return recording
    }

    // MARK: - Internals

    /// A sink name: letters, digits, `-`, `_` and `.`, 1 to 64 of them.
    private static func checkSinkName(_ sink: String, operation: String) throws {
        let allowed =
            !sink.isEmpty && sink.count <= 64
            && sink.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || $0 == "-" || $0 == "_" || $0 == "."
            }
        guard allowed else {
            throw BackbeatError(.invalidArgument, operation: operation, reason: "bad sink name '\(sink)'")
        }
    }

    /// The module line of a null sink (its name is also its description).
    private static func nullSinkModule(_ sink: String) -> String {
        "load-module module-null-sink sink_name=\(sink) rate=\(sampleRate) norewinds=1 "
            + "sink_properties=device.description=\(sink)"
    }

    /// The module line that keeps `sink` awake: a loopback from the silent keep-awake source.
    private static func keepAwakeModule(_ sink: String) -> String {
        "load-module module-loopback source=keepawake sink=\(sink) latency_msec=5 "
            + "source_dont_move=true sink_dont_move=true sink_input_properties=media.name=keepawake"
    }

    private func writeStartupScript() throws {
        let sinks = self.sinks
        var lines = [".fail"]
        for sink in sinks { lines.append(Self.nullSinkModule(sink)) }
        lines.append(
            "load-module module-null-source source_name=keepawake rate=\(Self.sampleRate) description=keepawake")
        for sink in sinks { lines.append(Self.keepAwakeModule(sink)) }
        // OpenAL names a capture device by its description: each monitor's is
        // its PulseAudio name, `<sink>.monitor` (a sink added later keeps
        // PulseAudio's "Monitor of <sink>": pactl cannot change it).
        for sink in sinks {
            lines.append("update-source-proplist \(sink).monitor device.description=\(sink).monitor")
        }
        lines.append("set-default-sink \(sinks[0])")
        lines.append("set-default-source \(sinks[0]).monitor")
        lines.append(
            "load-module module-native-protocol-unix socket=\(directory)/native auth-anonymous=1 "
                + "auth-cookie-enabled=0")
        let text = lines.joined(separator: "\n") + "\n"
        guard let file = fopen("\(directory)/startup.pa", "w") else {
            throw BackbeatError(
                .soundServerFailed, operation: "write startup.pa", reason: String(cString: strerror(errno)))
        }
        defer { fclose(file) }
        guard fputs(text, file) >= 0 else {
            throw BackbeatError(
                .soundServerFailed, operation: "write startup.pa", reason: String(cString: strerror(errno)))
        }
    }

    private func start(timeout: Double) throws {
        let environment = ["PATH=/usr/bin:/bin:/usr/sbin:/sbin", "HOME=\(directory)", "XDG_RUNTIME_DIR=\(directory)"]
        let pid = try Self.spawn(
            [
                "pulseaudio", "-n", "-F", "\(directory)/startup.pa", "--daemonize=no", "--use-pid-file=no",
                "--system=false", "--exit-idle-time=-1", "--log-target=stderr", "--log-level=error",
            ],
            environment: environment, output: "\(directory)/daemon.log")
        state.withLockedValue { $0.daemon = pid }
        let deadline = Self.now() + timeout
        // Ready: the server answers, and every sink runs at a low latency
        // (awake), which the keep-awake gives in about 0.1 s.
        while true {
            guard isRunning else {
                let log = Self.read("\(directory)/daemon.log")?.split(separator: "\n").first.map(String.init)
                throw BackbeatError(.soundServerFailed, operation: "pulseaudio", reason: log ?? "exited at start")
            }
            if let listing = try? pactl(["list", "sinks"], timeout: 2), Self.awakeSinks(in: listing) >= sinks.count {
                return
            }
            guard Self.now() < deadline else {
                kill(signal: SIGKILL)
                throw BackbeatError(.soundServerFailed, operation: "pulseaudio", reason: "not ready after \(timeout) s")
            }
            Self.sleep(milliseconds: 10)
        }
    }

    /// Counts sinks whose `Latency:` line reads under 10 ms.
    static func awakeSinks(in listing: String) -> Int {
        var count = 0
        for line in listing.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix("Latency: ") else { continue }
            let number = trimmed.dropFirst("Latency: ".count).prefix { $0.isNumber }
            if let usec = Int(number), usec < 10_000 { count += 1 }
        }
        return count
    }

    private func clientEnvironment() -> [String] {
        var merged = Self.currentEnvironment().filter { entry in
            !entry.hasPrefix("PULSE_SERVER=") && !entry.hasPrefix("PULSE_COOKIE=")
        }
        merged += environment.map { "\($0.key)=\($0.value)" }
        return merged
    }

    private func scratchFile(_ prefix: String) -> String {
        let n = state.withLockedValue { state -> Int in
            state.counter += 1
            return state.counter
        }
        return "\(directory)/\(prefix)-\(getpid())-\(n)"
    }

    static func currentEnvironment() -> [String] {
        var result: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            result.append(String(cString: entry))
            pointer += 1
        }
        return result
    }

    /// Spawns `argv` (searched in PATH) with stdin from /dev/null and stdout
    /// and stderr to `output`, so a child never holds the caller's pipes.
    /// Starts `argv` (found on PATH) with `environment` ("NAME=value"),
    /// standard input from /dev/null and both outputs to the file `output`.
    package static func spawn(_ argv: [String], environment: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let cArgv = argv.map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in cArgv { free(pointer) }
            for pointer in cEnv { free(pointer) }
        }
        // The caller's thread may block or ignore signals (a test runner's
        // threads do); the child starts with none blocked and defaults for
        // the ones used to stop it.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGHUP, SIGTERM, SIGINT, SIGPIPE, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, argv[0], &actions, &attributes, cArgv, cEnv)
        guard rc == 0 else {
            throw BackbeatError(
                .soundServerFailed, operation: "spawn \(argv[0])", reason: String(cString: strerror(rc)))
        }
        return pid
    }

    /// Waits for `pid`; kills it after `timeout` seconds. Returns its exit
    /// status, or nil when it was killed or died of a signal.
    package static func wait(_ pid: pid_t, timeout: Double) -> Int32? {
        let deadline = now() + timeout
        var status: Int32 = 0
        while true {
            let rc = waitpid(pid, &status, WNOHANG)
            if rc == pid { break }
            if rc < 0 && errno != EINTR { return nil }
            if now() > deadline {
                _ = Glibc.kill(pid, SIGKILL)
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                return nil
            }
            sleep(milliseconds: 1)
        }
        // WIFEXITED / WEXITSTATUS, spelled out (they are macros).
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil
    }

    static func read(_ path: String) -> String? {
        guard let bytes = readBytes(path) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func readBytes(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            result.append(contentsOf: chunk[0..<n])
        }
        return result
    }

    static func fileSize(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        return Int(info.st_size)
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func sleep(milliseconds: Int) {
        var request = timespec(tv_sec: 0, tv_nsec: milliseconds * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) < 0 && errno == EINTR { request = remaining }
    }
}

/// A recording of a sink's monitor in progress (``PrivateSoundServer/recordMonitor(of:timeout:)``).
public final class MonitorRecording: Sendable {
    private let pid: pid_t
    private let file: String
    private let finished = LockedValueBox<[Float]?>(nil)

    init(pid: pid_t, file: String) {
        self.pid = pid
        self.file = file
    }

    deinit { _ = try? stop() }

    /// Ends the recording and returns it: interleaved stereo float at 48 kHz,
    /// from about when ``PrivateSoundServer/recordMonitor(of:timeout:)``
    /// returned. Calling it again returns the same samples.
    public func stop() throws -> [Float] {
        try finished.withLockedValue { finished in
            if let finished { return finished }
            _ = kill(pid, SIGTERM)
            _ = PrivateSoundServer.wait(pid, timeout: 10)
            defer { unlink(file) }
            guard let bytes = PrivateSoundServer.readBytes(file) else {
                throw BackbeatError(.soundServerFailed, operation: "parec", reason: "recording missing")
            }
            let frameBytes = 4 * PrivateSoundServer.channels
            let usable = bytes.count / frameBytes * frameBytes
            var samples = [Float](repeating: 0, count: usable / 4)
            samples.withUnsafeMutableBytes { target in
                bytes.withUnsafeBytes { source in
                    target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[0..<usable]))
                }
            }
            finished = samples
            return samples
        }
    }
}
#endif
