import ArgumentParser
import BackbeatTelemetry
import Foundation

/// `backbeat monitor`: see inside a running game, and tune it live, through
/// the monitor socket a game serves while monitoring is on
/// (`engine.startMonitoring()`, `BACKBEAT_MONITOR=1`, `drumpad --monitor`).
struct MonitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monitor",
        abstract: "List running games you can monitor, or watch and tune one live.",
        discussion: """
            With no PID: lists the running games that serve a monitor socket (PID, process name,
            uptime). With a PID: a live screen of its buses, voices, music players and engine figures
            (keys: up/down select a bus, m mute, s solo, +/- volume, q quit); --json prints snapshots as
            JSON lines; --set sends one change and exits; --web serves a live page on 127.0.0.1.
            Exits 1 with one line for an unknown PID or a game that is not monitoring.
            """)

    @Argument(help: "The game's process id (see `backbeat monitor` for the list).")
    var pid: Int32?

    @Flag(
        help:
            "Print the game's snapshots as JSON lines instead of the live screen: only the snapshot lines, exactly as the game sent them (no events or replies)."
    )
    var json = false

    @Option(help: "With --json: print this many snapshots, then exit (default: until interrupted).")
    var count: Int?

    @Option(help: "Snapshots per second to ask for (1 to 60; default 10).")
    var rate: Int?

    @Option(
        help: ArgumentHelp(
            "Send one change and exit: bus.NAME.volume=0.5, bus.NAME.mute=on|off, bus.NAME.solo=on|off, parameter.NAME=0.8, snapshot.NAME=on|off, voice.ID.stop=on.",
            valueName: "KEY=VALUE"))
    var set: [String] = []

    @Flag(help: "Serve a live page on 127.0.0.1 and print its address.")
    var web = false

    @Option(help: "With --web: the port to listen on (0 or unset: a free one).")
    var port: Int?

    @Flag(help: "Reload every bank and sound whose file changed.")
    var reload = false

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be 1 or more") }
        if let rate, !(1...TelemetryProtocol.maximumRate).contains(rate) {
            throw ValidationError("--rate must be from 1 to \(TelemetryProtocol.maximumRate)")
        }
        if let port, !(0...65_535).contains(port) { throw ValidationError("--port must be from 0 to 65535") }
        if pid == nil && (json || count != nil || !set.isEmpty || web || port != nil || reload) {
            throw ValidationError("--json, --count, --set, --web, --port and --reload need a PID")
        }
        if count != nil && !json { throw ValidationError("--count goes with --json") }
        if port != nil && !web { throw ValidationError("--port goes with --web") }
    }

    func run() async throws {
        // Each mode lives in a file of its own (MonitorCommand+*.swift).
        guard let pid else { return try runList() }
        if !set.isEmpty { return try runSet(pid: pid, assignments: set) }
        if reload { return try runReload(pid: pid) }
        if web { return try await runWeb(pid: pid, port: port ?? 0) }
        if json { return try runJSON(pid: pid, count: count, rate: rate) }
        try runScreen(pid: pid, rate: rate)
    }
}
