import Foundation
import Glibc
import Testing

@testable import BackbeatTelemetry

/// Another user id must not see or tune the game. Run as root only (CI
/// is): the client runs as `nobody` through setpriv.
@Suite(.enabled(if: geteuid() == 0, "needs root to run a client as another user"))
struct TelemetryServerSecurityTests {
    /// Connects to `path` as uid 65534 and prints the first line, or the
    /// connection's error (`EACCES` and the like).
    private func firstLineAsNobody(_ path: String) throws -> String {
        let script = """
            import socket, sys, errno
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(10)
            try:
                s.connect(sys.argv[1])
            except OSError as e:
                print("connect:" + errno.errorcode.get(e.errno, str(e.errno)))
                sys.exit(0)
            data = b""
            while not data.endswith(b"\\n"):
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            print(data.decode().strip())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = [
            "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, path,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func anotherUserCannotReachThePrivateFolder() throws {
        try withServer { (server, root) throws in
            // Only the 0700 folder stands in the way: its parent is open.
            #expect(chmod(root, 0o755) == 0)
            #expect(try firstLineAsNobody(server.path) == "connect:EACCES")
        }
    }

    @Test func anotherUsersFolderIsRefused() throws {
        try withTemporaryDirectory { root in
            // Someone else made the folder first, hoping to receive the game's socket.
            #expect(mkdir(root + "/backbeat", 0o777) == 0)
            #expect(chown(root + "/backbeat", 65534, 65534) == 0)
            #expect {
                try TelemetryServer(path: root + "/backbeat/1.sock", hello: testHello) { _ in .ok(id: nil) }
            } throws: { error in
                "\(error)".contains("belongs to user 65534")
            }
            #expect(access(root + "/backbeat/1.sock", F_OK) != 0)
        }
    }

    @Test func anotherUserIsRefusedByPeerCredentials() throws {
        try withServer { (server, root) throws in
            // Open the folder and the socket, so that only SO_PEERCRED refuses.
            #expect(chmod(root, 0o755) == 0)
            #expect(chmod(root + "/backbeat", 0o755) == 0)
            #expect(chmod(server.path, 0o666) == 0)
            let line = try firstLineAsNobody(server.path)
            guard case .reply(let reply) = TelemetryLine.decode(line) else {
                Issue.record("expected an error line, got \(line)")
                return
            }
            #expect(reply.type == "error")
            #expect(reply.message?.contains("user 65534") == true)
            // The game's own user is still served.
            #expect(try TelemetryClient(path: server.path).readHello() == testHello)
        }
    }
}
