import BackbeatSupport
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// The monitor socket of a drum pad on a private sound server, attacked:
/// garbage, a flood of connections, another user.
@Suite struct MonitorSecurityTests {
    /// A raw client of the socket, with no knowledge of the protocol.
    final class RawClient {
        let fd: Int32

        /// Connects, or returns nil with errno set.
        init?(path: String, sendTimeout: Int = 5) {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
            withUnsafeMutableBytes(of: &address.sun_path) { target in
                for (index, byte) in bytes.enumerated() { target[index] = byte }
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard connected == 0 else {
                close(fd)
                return nil
            }
            // A server that stops reading must not hang the test: writes give up after a while.
            var timeout = timeval(tv_sec: sendTimeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }

        deinit { close(fd) }

        /// Writes what it can of `bytes`; returns how many went.
        func write(_ bytes: [UInt8]) -> Int {
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                offset += n
            }
            return offset
        }

        /// Reads lines until `count` snapshot lines have come, or the connection ends.
        func readSnapshots(_ count: Int) -> Int {
            var seen = 0
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while seen < count {
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { break }
                pending += chunk[0..<n]
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    if String(decoding: pending[..<newline], as: UTF8.self).contains("\"type\":\"snapshot\"") {
                        seen += 1
                    }
                    pending.removeSubrange(...newline)
                }
            }
            return seen
        }
    }

    /// The game's `engine.underruns` in its newest snapshot.
    static func underruns(_ game: MonitorGame) throws -> Int {
        let snapshot = try #require(try game.snapshots(3).last)
        return try #require((snapshot["engine"] as? [String: Any])?["underruns"] as? Int)
    }

    /// Garbage of three kinds: lines over the 64 KiB limit, short random lines, JSON that is no command.
    static func garbage(_ total: Int, seed: UInt64) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        var pieces: [[UInt8]] = []
        var made = 0
        var kind = 0
        while made < total {
            var piece: [UInt8]
            switch kind % 3 {
            case 0:
                piece = (0..<100_000).map { _ in UInt8(truncatingIfNeeded: random.next() % 255 + 1) }.map {
                    $0 == 10 ? 11 : $0
                }
            case 1:
                piece = []
                while piece.count < 100_000 {
                    piece += (0..<Int(random.next() % 200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                    piece.append(10)
                }
            default:
                let line = #"{"op":"set","key":"bus.music.volume","value":"\#(random.next())"}{"op":[[[[[[["#
                piece = Array(String(repeating: line + "\n", count: 100_000 / (line.count + 1)).utf8)
            }
            pieces.append(piece)
            made += piece.count
            kind += 1
        }
        return pieces
    }

    /// Sends `total` bytes of garbage, 100 kB a connection (the game
    /// closes one whose line goes over its limit, and stops reading one that
    /// does not read its error replies), one connection after another.
    static func sendGarbage(_ total: Int, to path: String, seed: UInt64) -> (sent: Int, connections: Int) {
        var sent = 0
        var connections = 0
        for piece in garbage(total, seed: seed) {
            guard let client = RawClient(path: path, sendTimeout: 2) else { continue }
            connections += 1
            sent += client.write(piece)
        }
        return (sent, connections)
    }

    @Test(
        "soundServer: 10 MB of garbage and 100 connections at once neither cause an underrun nor grow the game by over 1 MiB",
        // Underruns and memory are the plain pass's checks: under the thread
        // sanitizer the game's allocator holds freed memory back (+1.3 MiB
        // was seen there) and a slowed game misses its reads. The server's
        // own garbage and flood tests run under the sanitizer.
        .enabled(if: !underThreadSanitizer, "underruns and memory are checked by the plain pass")
    )
    func garbageAndAFloodOfConnections() throws {
        try withTemporaryDirectory { dir in
            let game = try MonitorGame(in: dir)
            defer { game.stop() }
            game.send("play", "snare", "bass")
            _ = try game.snapshot { (MonitorGame.bus("music", in: $0)?["rmsDB"] as? Double ?? -200) > -60 }

            // Warm-up: the same attack once, so that what the process keeps for
            // good after a first burst (the allocator's arenas and raised mmap
            // threshold) is in the baseline, and what is measured is whether
            // an attack leaves anything behind. (After a 1 MB warm-up the
            // attack measured +476 to +816 KiB; with no attack, -8 KiB.)
            _ = Self.sendGarbage(10_000_000, to: game.socketPath, seed: 1)
            var warm: [RawClient] = (0..<100).compactMap { _ in RawClient(path: game.socketPath) }
            _ = warm.first?.readSnapshots(3)
            warm = []
            _ = try game.snapshots(10)
            let underrunsBefore = try Self.underruns(game)
            let residentBefore = try #require(game.residentKiB)

            // 100 connections at once, held while the game sends ten snapshots to the first.
            var held = (0..<100).compactMap { _ in RawClient(path: game.socketPath) }
            let heldCount = held.count
            #expect(heldCount == 100, "100 connections made")
            #expect(held.first?.readSnapshots(10) == 10, "the first client still gets its snapshots")
            let residentHeld = game.residentKiB ?? 0
            held = []
            // 10 MB of garbage.
            let garbage = Self.sendGarbage(10_000_000, to: game.socketPath, seed: 2)

            // Afterwards the game still serves, still plays, and paid nothing lasting.
            let after = try game.snapshots(10)
            #expect(after.count == 10)
            #expect(
                after.contains { (MonitorGame.bus("music", in: $0)?["rmsDB"] as? Double ?? -200) > -60 },
                "the music still plays")
            let underrunsAfter = try Self.underruns(game)
            let residentAfter = try #require(game.residentKiB)
            print(
                "monitor attack: garbage \(garbage.sent) bytes over \(garbage.connections) connections, "
                    + "\(heldCount) connections held; VmRSS \(residentBefore) KiB before, \(residentHeld) KiB with 100 held, "
                    + "\(residentAfter) KiB after (+\(residentAfter - residentBefore) KiB); underruns \(underrunsBefore) → \(underrunsAfter)"
            )
            #expect(garbage.sent >= 10_000_000, "sent \(garbage.sent) bytes")
            #expect(underrunsAfter == underrunsBefore)
            #expect(
                residentAfter - residentBefore <= 1_024, "VmRSS grew from \(residentBefore) to \(residentAfter) KiB")
        }
    }

    /// The script another user runs: connects to the socket and reports what came back.
    static let probe = """
        import socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(sys.argv[1])
        except OSError as e:
            print("refused", e.errno)
            sys.exit(0)
        s.settimeout(10)
        data = b""
        try:
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
                if b'"type":"hello"' in data:
                    break
        except OSError as e:
            print("error", e.errno)
            sys.exit(0)
        print("read", data.decode("utf-8", "replace").strip())
        """

    @Test(
        "soundServer: a client running as another user cannot connect, even with the socket's modes opened",
        .enabled(if: getuid() == 0, "setpriv needs root to change user")
    )
    func anotherUserCannotConnect() throws {
        try withTemporaryDirectory { dir in
            // The other user must reach the folders above the runtime folder.
            chmod(dir.path, 0o755)
            let game = try MonitorGame(in: dir)
            defer { game.stop() }
            let folder = game.runtime.appendingPathComponent("backbeat").path
            var info = stat()
            #expect(
                stat(folder, &info) == 0 && info.st_mode & 0o777 == 0o700,
                "folder mode \(String(info.st_mode & 0o777, radix: 8))")
            #expect(
                stat(game.socketPath, &info) == 0 && info.st_mode & 0o777 == 0o600,
                "socket mode \(String(info.st_mode & 0o777, radix: 8))")
            let script = dir.appendingPathComponent("probe.py")
            try Data(Self.probe.utf8).write(to: script)
            chmod(script.path, 0o644)
            func asNobody(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
                try runTool(
                    "setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups"] + arguments,
                    environment: ["XDG_RUNTIME_DIR": game.runtime.path])
            }

            // This user gets the hello line.
            let own = try runTool("/usr/bin/python3", [script.path, game.socketPath])
            #expect(own.stdout.hasPrefix("read {\"type\":\"hello\""), "\(own.stdout)\(own.stderr)")
            // Another user: refused by the modes.
            let byModes = try asNobody(["/usr/bin/python3", script.path, game.socketPath])
            #expect(byModes.stdout == "refused \(EACCES)\n", "\(byModes.stdout)\(byModes.stderr)")
            let tool = try asNobody([try BackbeatTool.binary(), "monitor", "\(game.pid)", "--json", "--count", "1"])
            #expect(tool.status == 1 && tool.stdout.isEmpty, "\(tool.stdout)")
            #expect(tool.stderr.split(separator: "\n").count == 1, "\(tool.stderr)")

            // With the modes opened, the peer check alone refuses it: one error line, no hello, closed.
            chmod(folder, 0o755)
            chmod(game.socketPath, 0o666)
            let byPeer = try asNobody(["/usr/bin/python3", script.path, game.socketPath])
            #expect(byPeer.stdout.hasPrefix("read {\"type\":\"error\""), "\(byPeer.stdout)\(byPeer.stderr)")
            #expect(byPeer.stdout.contains("user 65534") && !byPeer.stdout.contains("hello"), "\(byPeer.stdout)")
            #expect(byPeer.stdout.split(separator: "\n").count == 1)
            // And the game serves its own user as before.
            #expect(try game.snapshots(1).count == 1)
        }
    }
}
