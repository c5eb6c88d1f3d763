import ArgumentParser
import BackbeatTelemetry
import Foundation

extension MonitorCommand {
    /// `backbeat monitor PID`: the live screen, redrawn on each snapshot;
    /// keys send `set` commands for the selected bus.
    func runScreen(pid: Int32, rate: Int?) throws {
        try failingInOneLine {
            let connection = try MonitorConnection(pid: pid)
            guard isatty(STDOUT_FILENO) == 1, isatty(STDIN_FILENO) == 1 else {
                throw MonitorCommandError(
                    "the live screen needs a terminal; use --json for snapshots as JSON lines")
            }
            if let rate { try connection.send(TelemetryCommand(action: .rate(rate))) }
            let stop = MonitorStopFlag.onSignals()
            let terminal = MonitorTerminal()
            defer { terminal.restore() }
            var screen = MonitorScreen(title: "\(connection.hello.process) (PID \(pid))")
            var pending: [Int: TelemetrySetting] = [:]
            var nextID = 1
            var dirty = true
            // The game's lines are taken on the clock's ticks (its sends wake
            // nobody); keys are answered as they are typed.
            var clock = TelemetryReadClock(rate: rate ?? TelemetryProtocol.defaultRate)
            while !stop.isSet {
                terminal.waitForKeys(seconds: clock.secondsLeft)
                let lines = clock.takeTick() ? try connection.availableLines() : []
                for line in lines {
                    switch line.kind {
                    case .hello(let hello):
                        screen.title = "\(hello.process) (PID \(hello.pid))"
                    case .snapshot(let snapshot):
                        screen.snapshot = snapshot
                    case .reply(let reply):
                        let setting = reply.id.flatMap { pending.removeValue(forKey: $0) }
                        let what = setting.map { "\($0.key)=\($0.valueText)" } ?? "command"
                        screen.status =
                            reply.type == "ok" ? "\(what): ok" : "\(what): \(reply.message ?? "refused")"
                    case .event, .other:
                        continue
                    }
                    dirty = true
                }
                for key in MonitorScreen.keys(in: terminal.typed()) {
                    switch key {
                    case .quit: stop.set()
                    case .up: screen.moveSelection(by: -1)
                    case .down: screen.moveSelection(by: 1)
                    case .mute, .solo, .louder, .quieter:
                        guard let setting = screen.setting(for: key) else { continue }
                        pending[nextID] = setting
                        try connection.send(TelemetryCommand(id: nextID, action: .set(setting)))
                        nextID += 1
                    }
                    dirty = true
                }
                if dirty {
                    let size = terminal.size
                    terminal.write(screen.frame(width: size.width, height: size.height))
                    dirty = false
                }
            }
        }
    }
}
