import Foundation
import Glibc
import Testing

@testable import BackbeatTelemetry

@Suite struct TelemetryClientTests {
    @Test func rawLinesAreTheBytesTheServerSent() throws {
        try withServer { server, _ in
            let client = try TelemetryClient(path: server.path)
            #expect(
                try client.nextRawLine(timeout: 10) == String(decoding: testHello.jsonLine.dropLast(), as: UTF8.self))
            let snapshot = makeSnapshot(time: 2.5, voices: 256)
            server.publish(snapshot)
            let raw = try #require(try client.nextRawLine(timeout: 10))
            #expect(Array(raw.utf8) == Array(snapshot.jsonLine.dropLast()))
            #expect(TelemetryLine.decode(raw).snapshot == snapshot)
        }
    }

    @Test func aQuietGameIsATimeoutWithAClearMessage() throws {
        try withServer { server, _ in
            let client = try TelemetryClient(path: server.path)
            _ = try client.readHello()
            // Nothing is published, so no line can come.
            #expect(throws: TelemetryClientError("no line from \(server.path) within 0.05 s")) {
                try client.nextLine(timeout: 0.05)
            }
        }
    }

    @Test func aLastLineWithoutANewlineIsReadThenNil() throws {
        try withPeer { client, peer throws in
            send(peer, "{\"type\":\"ok\"}\npartial")
            endStream(peer)
            // In the socket already, so a timeout of zero still reads it.
            #expect(try client.nextRawLine(timeout: 0) == #"{"type":"ok"}"#)
            #expect(try client.nextRawLine(timeout: 10) == "partial")
            #expect(try client.nextRawLine(timeout: 10) == nil)
            #expect(try client.nextRawLine(timeout: 10) == nil)
        }
    }

    @Test func availableLinesTakeWhatCameWithoutWaiting() throws {
        try withServer { server, _ in
            let client = try TelemetryClient(path: server.path)
            _ = try client.readHello()
            // Nothing was published: nothing to take, and the connection is still open.
            #expect(try client.availableRawLines() == [])
            let snapshot = makeSnapshot(time: 1, voices: 64)
            server.publish(snapshot)
            // The server may send from its own thread: look until it came,
            // for 10 s at most (a guard against a hang).
            var lines: [String] = []
            for _ in 0..<10_000 where lines.isEmpty {
                lines = try #require(try client.availableRawLines())
                usleep(1_000)
            }
            #expect(lines.map { Array($0.utf8) } == [Array(snapshot.jsonLine.dropLast())])
        }
    }

    @Test func availableLinesAreEveryWholeLineInOneTake() throws {
        try withPeer { client, peer throws in
            // In the socket as soon as each send returns: no wait is needed.
            send(peer, "{\"type\":\"ok\",\"id\":1}\n{\"type\":\"ok\",\"id\":2}\n{\"type\":")
            #expect(try client.availableRawLines() == [#"{"type":"ok","id":1}"#, #"{"type":"ok","id":2}"#])
            // The half line waits for its end.
            #expect(try client.availableRawLines() == [])
            send(peer, "\"ok\",\"id\":3}\n")
            #expect(try client.availableRawLines() == [#"{"type":"ok","id":3}"#])
        }
    }

    @Test func availableLinesEndInNilOnceTheGameHasGone() throws {
        try withPeer { client, peer throws in
            send(peer, "{\"type\":\"ok\"}\n{\"type\":\"ok\",\"id\":2}\npartial")
            endStream(peer)
            // The lines and the end are in the socket before the first look;
            // a last line without a newline still counts.
            #expect(try client.availableRawLines() == [#"{"type":"ok"}"#, #"{"type":"ok","id":2}"#, "partial"])
            #expect(try client.availableRawLines() == nil)
            #expect(try client.availableRawLines() == nil)
        }
    }

    @Test func theEndOfTheStreamIsNil() throws {
        try withTemporaryDirectory { root in
            let server = try TelemetryServer(path: root + "/backbeat/1.sock", hello: testHello) { _ in .ok(id: nil) }
            let client = try TelemetryClient(path: server.path)
            _ = try client.readHello()
            server.close()
            #expect(try client.nextLine(timeout: 10) == nil)
            #expect(throws: TelemetryClientError.self) {
                // The game is gone: sending fails rather than raising SIGPIPE.
                for _ in 0..<100 { try client.send(TelemetryCommand(action: .reload)) }
            }
        }
    }

    /// A client connected to a peer socket of the test's own, which `body`
    /// writes to (and may end, ``endStream(_:)``); closed after `body`.
    private func withPeer(_ body: (TelemetryClient, Int32) throws -> Void) throws {
        try withTemporaryDirectory { root in
            let path = root + "/peer.sock"
            let listener = try TelemetrySocket.makeStream(nonBlocking: false).get()
            defer { close(listener) }
            #expect(TelemetrySocket.withAddress(of: path) { bind(listener, $0, $1) } == 0)
            #expect(listen(listener, 1) == 0)
            let client = try TelemetryClient(path: path)
            let peer = accept(listener, nil, nil)
            try #require(peer >= 0)
            defer { close(peer) }
            try body(client, peer)
        }
    }

    /// Ends what the peer sends, as a game that closed would: the client reads the end of the stream.
    private func endStream(_ peer: Int32) {
        #expect(shutdown(peer, Int32(SHUT_WR)) == 0)
    }

    private func send(_ peer: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        #expect(TelemetrySocket.sendSome(peer, bytes, from: 0) == .success(bytes.count))
    }
}
