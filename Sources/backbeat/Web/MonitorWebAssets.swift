import NIOHTTP1

/// The page's three files. They are compiled into the tool (SwiftPM's
/// `embedInCode` resources, from `Web/Assets`), so a binary copied anywhere
/// serves them with nothing to find on disk and nothing fetched from outside.
enum MonitorWebAssets {
    /// What to send for one request.
    struct Response {
        var status: HTTPResponseStatus
        var contentType: String
        var body: [UInt8]
    }

    /// The response to a request: a page file for `GET` or `HEAD` of `/`,
    /// `/monitor.css` or `/monitor.js` (a query string ignored), 404 for any
    /// other path, 405 for any other method.
    ///
    /// - Parameter head: the request's head.
    static func response(to head: HTTPRequestHead) -> Response {
        guard head.method == .GET || head.method == .HEAD else {
            return Response(
                status: .methodNotAllowed, contentType: "text/plain; charset=utf-8",
                body: Array("method not allowed\n".utf8))
        }
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        switch path {
        case "/", "/index.html":
            return Response(status: .ok, contentType: "text/html; charset=utf-8", body: PackageResources.index_html)
        case "/monitor.css":
            return Response(status: .ok, contentType: "text/css; charset=utf-8", body: PackageResources.monitor_css)
        case "/monitor.js":
            return Response(
                status: .ok, contentType: "text/javascript; charset=utf-8", body: PackageResources.monitor_js)
        default:
            return Response(
                status: .notFound, contentType: "text/plain; charset=utf-8", body: Array("not found\n".utf8))
        }
    }
}
