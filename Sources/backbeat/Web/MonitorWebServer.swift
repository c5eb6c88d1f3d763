import BackbeatTelemetry
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import Synchronization

/// The web monitor's HTTP server, on swift-nio's own HTTP/1.1 and WebSocket
/// handlers: `GET /`, `/monitor.css` and `/monitor.js` serve the page (built
/// into the tool), `/socket` upgrades to the WebSocket that carries the
/// game's lines to the page and the page's commands to the game. It listens
/// on 127.0.0.1 only.
struct MonitorWebServer: Sendable {
    /// The path the page opens its WebSocket on.
    static let socketPath = "/socket"

    /// The pages' shared lines.
    let hub: MonitorWebHub
    /// Sends a command line to the game; throws when the game no longer reads.
    let send: @Sendable (String) throws -> Void

    fileprivate enum Connection {
        case webSocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case http(NIOAsyncChannel<HTTPServerRequestPart, HTTPPart<HTTPResponseHead, ByteBuffer>>)
    }

    /// A server bound and listening, not yet serving.
    struct Listener: Sendable {
        fileprivate let channel: NIOAsyncChannel<EventLoopFuture<Connection>, Never>
        /// The port it listens on (the one asked for, or the free one the system chose for 0).
        let port: Int
    }

    /// Binds 127.0.0.1:`port`.
    ///
    /// - Parameter port: the port, or 0 for a free one.
    /// - Returns: the listener, for ``serve(_:until:)``.
    /// - Throws: swift-nio's error when the port cannot be bound (taken, or privileged).
    func listen(port: Int) async throws -> Listener {
        let origins = OriginCheck()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configure(channel, origins: origins)
                }
            }
        let bound = channel.channel.localAddress?.port ?? port
        origins.port = bound
        return Listener(channel: channel, port: bound)
    }

    /// Serves connections until `stop` returns, then closes the listener and
    /// waits (at most `drainSeconds`) for open sockets to say goodbye.
    ///
    /// - Parameters:
    ///   - listener: what ``listen(port:)`` returned.
    ///   - drainSeconds: how long open connections may take to close once `stop` returned.
    ///   - stop: returns when the server should end (the game went away).
    func serve(_ listener: Listener, drainSeconds: Double = 2, until stop: @escaping @Sendable () async -> Void)
        async throws
    {
        let open = OpenConnections()
        do {
            try await withThrowingDiscardingTaskGroup { group in
                group.addTask {
                    await stop()
                    try? await listener.channel.channel.close()
                }
                try await listener.channel.executeThenClose { inbound in
                    for try await connection in inbound {
                        open.count.add(1, ordering: .relaxed)
                        group.addTask {
                            await self.handle(connection)
                            open.count.subtract(1, ordering: .relaxed)
                        }
                    }
                }
                // The listener is closed: the pages read their goodbye and close,
                // or are cut off after `drainSeconds`.
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(drainSeconds)
                while open.count.load(ordering: .relaxed) > 0 {
                    guard clock.now < deadline else { throw DrainTimedOut() }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
        } catch is DrainTimedOut {}
    }

    private struct DrainTimedOut: Error {}

    /// Connections being served, shared with their tasks.
    private final class OpenConnections: Sendable {
        let count = Atomic(0)
    }

    /// An HTTP/1.1 pipeline that upgrades to a WebSocket at ``socketPath``
    /// when the request's Origin is the page's own (or absent: not a browser).
    private static func configure(_ channel: any Channel, origins: OriginCheck) throws -> EventLoopFuture<Connection> {
        let upgrader = NIOTypedWebSocketServerUpgrader<Connection>(
            maxFrameSize: TelemetryProtocol.maximumCommandLength,
            shouldUpgrade: { channel, head in
                let allowed = head.uri == socketPath && origins.allows(head.headers)
                return channel.eventLoop.makeSucceededFuture(allowed ? HTTPHeaders() : nil)
            },
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    // A message split over several frames is put back together here, within the same bound.
                    try channel.pipeline.syncOperations.addHandler(
                        NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 1, maxAccumulatedFrameCount: 64,
                            maxAccumulatedFrameSize: TelemetryProtocol.maximumCommandLength))
                    return Connection.webSocket(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                }
            })
        let configuration = NIOTypedHTTPServerUpgradeConfiguration(
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(MonitorWebResponseHandler())
                    return Connection.http(try NIOAsyncChannel(wrappingChannelSynchronously: channel))
                }
            })
        return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(
            configuration: .init(upgradeConfiguration: configuration))
    }

    private func handle(_ connection: EventLoopFuture<Connection>) async {
        // One connection's failure (a reset, a bad request) ends that connection only.
        do {
            switch try await connection.get() {
            case .webSocket(let channel): try await serveWebSocket(channel)
            case .http(let channel): try await serveHTTP(channel)
            }
        } catch {}
    }

    /// Answers one request and closes: the page is three small files, and a
    /// connection kept alive would only hold the server open when it ends.
    private func serveHTTP(
        _ channel: NIOAsyncChannel<HTTPServerRequestPart, HTTPPart<HTTPResponseHead, ByteBuffer>>
    ) async throws {
        try await channel.executeThenClose { inbound, outbound in
            for try await part in inbound {
                let response: MonitorWebAssets.Response
                var method = HTTPMethod.GET
                switch part {
                case .head(let head):
                    method = head.method
                    response = MonitorWebAssets.response(to: head)
                case .end:
                    // The WebSocket upgrader keeps the head of an upgrade it
                    // refused (a foreign Origin, another path): only its end comes here.
                    response = MonitorWebAssets.Response(
                        status: .forbidden, contentType: "text/plain; charset=utf-8",
                        body: Array("WebSocket refused: this page's own origin only\n".utf8))
                case .body:
                    continue
                }
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: response.contentType)
                headers.add(name: "Content-Length", value: String(response.body.count))
                headers.add(name: "Cache-Control", value: "no-store")
                headers.add(name: "X-Content-Type-Options", value: "nosniff")
                headers.add(name: "Connection", value: "close")
                let body = ByteBuffer(bytes: method == .HEAD ? [] : response.body)
                try await outbound.write(
                    contentsOf: [
                        .head(HTTPResponseHead(version: .http1_1, status: response.status, headers: headers)),
                        .body(body), .end(nil),
                    ])
                return
            }
        }
    }

    /// One page: the game's lines out, its commands in, until either side ends.
    private func serveWebSocket(_ channel: NIOAsyncChannel<WebSocketFrame, WebSocketFrame>) async throws {
        let (page, lines) = hub.join()
        defer { hub.leave(page) }
        try await channel.executeThenClose { inbound, outbound in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await line in lines {
                        try await outbound.write(
                            WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: line)))
                    }
                    // The game is gone (or the page left): a normal close.
                    var code = ByteBuffer()
                    code.write(webSocketErrorCode: .normalClosure)
                    try await outbound.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: code))
                }
                group.addTask {
                    for try await frame in inbound {
                        switch frame.opcode {
                        case .text:
                            let text = String(buffer: frame.unmaskedData)
                            guard let line = hub.command(text, from: page) else { continue }
                            do {
                                try send(line)
                            } catch {
                                hub.reply(.error("\(error)", id: nil), to: page)
                            }
                        case .ping:
                            try await outbound.write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
                        case .connectionClose:
                            return
                        default:
                            continue
                        }
                    }
                }
                // Whichever side ends first ends the page's socket.
                try await group.next()
                group.cancelAll()
            }
        }
    }
}
