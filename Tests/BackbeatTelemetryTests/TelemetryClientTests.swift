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
        try withTemporaryDirectory { root in
            let path = root + "/peer.sock"
            let listener = try TelemetrySocket.makeStream(nonBlocking: false).get()
            defer { close(listener) }
            #expect(TelemetrySocket.withAddress(of: path) { bind(listener, $0, $1) } == 0)
            #expect(listen(listener, 1) == 0)
            let client = try TelemetryClient(path: path)
            let peer = accept(listener, nil, nil)
            #expect(peer >= 0)
            #expect(TelemetrySocket.sendSome(peer, Array("{\"type\":\"ok\"}\npartial".utf8), from: 0) == .success(21))
            close(peer)
            // In the socket already, so a timeout of zero still reads it.
            #expect(try client.nextRawLine(timeout: 0) == #"{"type":"ok"}"#)
            #expect(try client.nextRawLine(timeout: 10) == "partial")
            #expect(try client.nextRawLine(timeout: 10) == nil)
            #expect(try client.nextRawLine(timeout: 10) == nil)
        }
    }

    @Test func anInterruptEndsAReadWaitingOnAnotherThread() throws {
        try withServer { server, _ in
            let client = try TelemetryClient(path: server.path)
            _ = try client.readHello()
            let reading = DispatchSemaphore(value: 0)
            let ended = DispatchSemaphore(value: 0)
            nonisolated(unsafe) var line: String? = "unread"
            // The reading thread has the client until `ended`; this one only interrupts it.
            nonisolated(unsafe) let reader = client
            Thread {
                reading.signal()
                // No snapshot is published: only the interrupt can end this wait.
                line = try? reader.nextRawLine(timeout: nil)
                ended.signal()
            }.start()
            reading.wait()
            usleep(50_000)
            client.interrupt()
            #expect(ended.wait(timeout: .now() + 10) == .success)
            #expect(line == nil)
            client.close()
            #expect(try client.nextRawLine(timeout: 0) == nil)
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
}
