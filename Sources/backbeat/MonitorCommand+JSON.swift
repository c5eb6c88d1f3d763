import ArgumentParser
import BackbeatTelemetry
import Foundation

extension MonitorCommand {
    /// `backbeat monitor PID --json [--count N] [--rate R]`: the game's
    /// snapshot lines exactly as it wrote them, one JSON object a line; event
    /// and reply lines are not printed.
    func runJSON(pid: Int32, count: Int?, rate: Int?) throws {
        try failingInOneLine {
            let connection = try MonitorConnection(pid: pid)
            if let rate { try connection.send(TelemetryCommand(action: .rate(rate))) }
            // A reader that stops early (`| head -n 1`) ends the run quietly, not with SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            let stop = MonitorStopFlag.onSignals()
            // On its own clock, at the rate asked: the game's sends wake nobody.
            var clock = TelemetryReadClock(rate: rate ?? TelemetryProtocol.defaultRate)
            var printed = 0
            while count.map({ printed < $0 }) ?? true {
                if stop.isSet { return }
                guard clock.sleepToTick(atMost: 0.2) else { continue }
                for line in try connection.availableLines() where line.type == "snapshot" {
                    guard count.map({ printed < $0 }) ?? true else { break }
                    guard Self.writeOut(line.raw + "\n") else { return }
                    printed += 1
                }
            }
        }
    }

    /// Writes `text` to standard output at once (no buffering, so a script
    /// reading a pipe sees each line as it comes).
    ///
    /// - Parameter text: what to write.
    /// - Returns: false when the reader has gone.
    static func writeOut(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }
}
