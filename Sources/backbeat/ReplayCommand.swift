import ArgumentParser
import Backbeat
import BackbeatReplay
import Foundation

/// `backbeat replay FILE --output out.wav | --summary [--from S] [--to S] [--solo BUS]`.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Render a captured game session again, offline (BACKBEAT_CAPTURE=FILE, drumpad --capture FILE).",
        discussion: """
            Renders the capture to --output as 32-bit float WAV, written to a temporary file and renamed when
            complete: a failed replay leaves no file. A capture of an offline or file session begun as its
            engine opened replays bit for bit; a device session replays the same sounds at the same engine
            frames. --summary prints what happened, one line per second. --from and --to render a part (in
            seconds from the capture's start); --solo BUS renders one bus. The sounds load from the paths the
            game used: a missing one is an error naming it and its path, one whose content changed since is a
            warning and the replay goes on. A capture cut short (a crash) or damaged replays up to the damage,
            writes what it rendered, and says where it stopped in one warning line (exit status 0). Errors are
            one line on standard error, exit status 1, and no WAV.
            """)

    @Argument(help: "The capture file.")
    var capture: String

    @Option(parsing: .unconditional, help: "The WAV to write.")
    var output: String?

    @Flag(help: "Print a one-line-per-second timeline of what happened.")
    var summary = false

    @Option(parsing: .unconditional, help: "Start writing at this many seconds from the capture's start.")
    var from: String?

    @Option(parsing: .unconditional, help: "Stop at this many seconds from the capture's start.")
    var to: String?

    @Option(parsing: .unconditional, help: "Render only this bus (by name: master, music, effects or a game's own).")
    var solo: String?

    func run() throws {
        do {
            guard output != nil || summary else {
                throw BackbeatError(
                    .invalidArgument, operation: "replay", reason: "give --output FILE.wav or --summary")
            }
            let from = try from.map { try Self.seconds($0, flag: "--from") }
            let to = try to.map { try Self.seconds($0, flag: "--to") }
            if let from, let to, to <= from {
                throw BackbeatError(.invalidArgument, operation: "replay", reason: "--to must be after --from")
            }
            let replayer = try Replayer(
                url: URL(fileURLWithPath: capture), options: .init(from: from, to: to, soloBus: solo))
            replayer.warn = { printWarning($0) }
            let result = try replayer.run(writingTo: output.map { URL(fileURLWithPath: $0) })
            if summary {
                var timeline = replayer.summary
                for line in timeline.finish() { print(line) }
            }
            // A capture cut short (a crash) or damaged is still worth hearing:
            // the replay keeps what came before the damage, says where it
            // stopped in one line, and succeeds.
            if let damage = result.damage {
                printWarning("the capture stops early \(damage); replayed up to there")
            } else if !result.ended && !result.stoppedAtTo {
                // A replay cut at --to never reads the end record: nothing is missing.
                printWarning("the capture has no end record (the game did not stop it): replayed all it holds")
            }
        } catch {
            printError(error)
            throw ExitCode.failure
        }
    }

    /// A number of seconds, at least 0 and at most a day.
    static func seconds(_ text: String, flag: String) throws -> Double {
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 0,
            value <= 86_400
        else {
            throw BackbeatError(
                .invalidArgument, operation: "replay",
                reason: "\(flag) needs a number of seconds from 0 to 86400, got \"\(text)\"")
        }
        return value
    }
}
