import NIOHTTP1
import Synchronization

/// Which pages may open the monitor's WebSocket: the monitor's own page
/// (`http://127.0.0.1:PORT` or `http://localhost:PORT`), or a client that is
/// not a browser (no `Origin` header). Any other site a browser has open is
/// refused, so it cannot read the game or change its mix.
final class OriginCheck: Sendable {
    private let bound = Atomic(0)

    /// The port the server listens on, set once it is bound.
    var port: Int {
        get { bound.load(ordering: .acquiring) }
        set { bound.store(newValue, ordering: .releasing) }
    }

    /// Whether a request with these headers may upgrade.
    ///
    /// - Parameter headers: the upgrade request's headers.
    func allows(_ headers: HTTPHeaders) -> Bool {
        let origins = headers["Origin"]
        guard !origins.isEmpty else { return true }
        let port = self.port
        return port != 0 && origins.allSatisfy { $0 == "http://127.0.0.1:\(port)" || $0 == "http://localhost:\(port)" }
    }
}
