import ArgumentParser
import BackbeatTelemetry
import Foundation

// `backbeat monitor PID --web`: the game's lines on a live page (Web/).
extension MonitorCommand {
    /// Connects to the game, serves the page on 127.0.0.1:`port` and prints
    /// its address; returns once the game has gone and the pages were told.
    ///
    /// - Parameters:
    ///   - pid: the game's process id.
    ///   - port: the port to listen on, or 0 for a free one.
    /// - Throws: `ExitCode.failure` after one line on standard error when the
    ///   game cannot be reached (before anything listens) or the port cannot be bound.
    func runWeb(pid: Int32, port: Int) async throws {
        let link: MonitorGameLink
        let hello: String
        do {
            link = try MonitorGameLink(pid: pid)
            // The hello line: the game speaks the protocol, before anything listens.
            guard let line = try link.nextLine() else {
                throw MonitorWebError("PID \(pid) closed its monitor socket at once")
            }
            hello = line
        } catch {
            printError(error)
            throw ExitCode.failure
        }
        let hub = MonitorWebHub()
        hub.publish(hello)
        let server = MonitorWebServer(hub: hub, send: { try link.send($0) })
        let listener: MonitorWebServer.Listener
        do {
            listener = try await server.listen(port: port)
        } catch {
            printError(MonitorWebError("cannot listen on 127.0.0.1:\(port): \(error)"))
            throw ExitCode.failure
        }
        print("http://127.0.0.1:\(listener.port)/")
        fflush(nil)

        // The game's lines are read on a thread of their own, on its own
        // clock at the game's default rate (the game's sends wake nobody),
        // straight into the hub; the end of the stream is the game going away.
        let (gone, goneContinuation) = AsyncStream.makeStream(of: Void.self)
        Thread.detachNewThread {
            var reason = "its monitor socket closed"
            var clock = TelemetryReadClock(rate: TelemetryProtocol.defaultRate)
            do {
                while true {
                    guard clock.sleepToTick(atMost: 1) else { continue }
                    guard let lines = try link.availableLines() else { break }
                    for line in lines { hub.publish(line) }
                }
            } catch {
                reason = "\(error)"
            }
            hub.finish(with: MonitorWebHub.goodbye("the game (PID \(pid)) has gone: \(reason)"))
            goneContinuation.finish()
        }
        try await server.serve(listener) {
            for await _ in gone {}
        }
    }
}
