import ArgumentParser
import Foundation

extension MonitorCommand {
    /// `backbeat monitor`: the running games that serve a monitor socket.
    func runList() throws {
        let games = MonitorConnection.runningGames()
        guard !games.isEmpty else {
            print(
                "No running game is monitoring. Start one with BACKBEAT_MONITOR=1 in its environment, "
                    + "engine.startMonitoring() in its code, or drumpad --monitor.")
            return
        }
        let width = max(7, games.map { $0.process.count }.max() ?? 0)
        print("PID".padding(toLength: 8, withPad: " ", startingAt: 0) + pad("PROCESS", width) + "  UPTIME")
        for game in games {
            print(
                String(game.pid).padding(toLength: 8, withPad: " ", startingAt: 0) + pad(game.process, width) + "  "
                    + Self.uptime(game.uptime))
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// Seconds as `1:02:03`, `2:03` under an hour, or `3 d 1:02:03`.
    static func uptime(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "-" }
        let total = Int(min(seconds, 1e9))
        let (days, hours, minutes, secs) = (total / 86_400, total / 3_600 % 24, total / 60 % 60, total % 60)
        let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        let clock = days > 0 || hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
        return days > 0 ? "\(days) d \(clock)" : clock
    }
}
