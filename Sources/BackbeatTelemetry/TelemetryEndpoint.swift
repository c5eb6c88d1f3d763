import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where games serve their monitor sockets, and which games do:
/// `$XDG_RUNTIME_DIR/backbeat/PID.sock`, or `/tmp/backbeat-UID/PID.sock`
/// when `XDG_RUNTIME_DIR` is unset.
package enum TelemetryEndpoint {
    /// The folder of monitor sockets for this user.
    ///
    /// - Parameter environment: the variables to read `XDG_RUNTIME_DIR` from.
    /// - Returns: `$XDG_RUNTIME_DIR/backbeat`, or `/tmp/backbeat-UID` when it is unset or empty.
    package static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            return (runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime) + "/backbeat"
        }
        return "/tmp/backbeat-\(geteuid())"
    }

    /// The socket a process serves while monitoring.
    ///
    /// - Parameters:
    ///   - pid: the process id.
    ///   - environment: the variables ``directory(environment:)`` reads.
    /// - Returns: `DIRECTORY/PID.sock`.
    package static func socketPath(
        pid: Int32, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        directory(environment: environment) + "/\(pid).sock"
    }

    /// The live processes with a socket in the folder, by PID. A socket
    /// whose process is gone (a crashed game's), or whose PID now belongs to
    /// a process started after the socket was made, is not listed.
    ///
    /// - Parameter environment: the variables ``directory(environment:)`` reads.
    package static func runningGames(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [RunningGame] {
        let folder = directory(environment: environment)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var games: [RunningGame] = []
        for name in names where name.hasSuffix(".sock") {
            guard let pid = Int32(name.dropLast(5)), pid > 0, processExists(pid) else { continue }
            let path = folder + "/" + name
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK,
                let uptime = uptime(of: pid)
            else { continue }
            // A PID reused by a process that started after the socket was
            // made is not the game that made it.
            let socketMade = Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9
            let started = Date().timeIntervalSince1970 - uptime
            guard started <= socketMade + 2 else { continue }
            games.append(RunningGame(pid: pid, process: processName(of: pid) ?? "?", uptime: uptime, path: path))
        }
        return games.sorted { $0.pid < $1.pid }
    }

    /// Whether a process with this id exists (ours or another user's).
    ///
    /// - Parameter pid: the process id.
    static func processExists(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }

    /// The process's name from `/proc/PID/comm`, or nil if it cannot be read.
    ///
    /// - Parameter pid: the process id.
    static func processName(of pid: Int32) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8) else { return nil }
        return text.trimmingCharacters(in: .newlines)
    }

    /// Seconds since the process started: the system's uptime less the
    /// process's start time (`/proc/PID/stat` field 22, in clock ticks since boot).
    ///
    /// - Parameter pid: the process id.
    static func uptime(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let system = try? String(contentsOfFile: "/proc/uptime", encoding: .utf8),
            let systemUptime = system.split(separator: " ").first.flatMap({ Double($0) }),
            // The name (field 2) may hold spaces and parentheses; fields after the last ")" are plain.
            let nameEnd = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: nameEnd)...].split(separator: " ")
        // fields[0] is field 3 (state), so field 22 is fields[19].
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard fields.count > 19, let startTicks = Double(fields[19]), ticksPerSecond > 0 else { return nil }
        return max(0, systemUptime - startTicks / ticksPerSecond)
    }

    /// Makes the socket folder private: creates it mode 0700 if missing,
    /// takes group and other bits away if it has them, and refuses one that
    /// is not a real folder or belongs to another user (someone else's
    /// `/tmp/backbeat-UID` must not receive this game's socket).
    ///
    /// - Parameter folder: the folder, whose parent must exist.
    /// - Throws: ``TelemetryServerError`` naming the folder and the reason.
    static func preparePrivateDirectory(_ folder: String) throws(TelemetryServerError) {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST {
            throw TelemetryServerError("cannot create the monitor folder \(folder): \(TelemetrySocket.describe(errno))")
        }
        var status = stat()
        guard lstat(folder, &status) == 0 else {
            throw TelemetryServerError("cannot read the monitor folder \(folder): \(TelemetrySocket.describe(errno))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw TelemetryServerError(
                "the monitor folder \(folder) is not a folder (a link or a file is in its place)")
        }
        guard status.st_uid == geteuid() else {
            throw TelemetryServerError(
                "the monitor folder \(folder) belongs to user \(status.st_uid), not to this game's user \(geteuid())")
        }
        if status.st_mode & 0o7777 != 0o700, chmod(folder, 0o700) != 0 {
            throw TelemetryServerError("cannot make \(folder) private (mode 0700): \(TelemetrySocket.describe(errno))")
        }
    }
}
