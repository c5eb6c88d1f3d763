import NIOCore
import NIOHTTP1

/// Turns the response parts the HTTP connection's async channel writes
/// (bodies as plain byte buffers) into swift-nio's HTTP server parts.
final class MonitorWebResponseHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPPart<HTTPResponseHead, ByteBuffer>
    typealias OutboundOut = HTTPServerResponsePart

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch Self.unwrapOutboundIn(data) {
        case .head(let head): context.write(Self.wrapOutboundOut(.head(head)), promise: promise)
        case .body(let buffer): context.write(Self.wrapOutboundOut(.body(.byteBuffer(buffer))), promise: promise)
        case .end(let trailers): context.write(Self.wrapOutboundOut(.end(trailers)), promise: promise)
        }
    }
}
