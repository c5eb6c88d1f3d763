import ArgumentParser
import BackbeatBench

@main
struct BackbeatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backbeat",
        abstract:
            "Backbeat, the game audio engine: inspect outputs and files, play or render a file, record from a capture device, convert audio, manage a media library, list the desktop's media players, check sound banks.",
        discussion: """
            Exit statuses: 0 on success; 64 for a command line that cannot be parsed (an unknown
            subcommand or flag, a missing argument), with usage on standard error; 1 when the command ran
            and failed (a bad value, a file that cannot be read or written, no output device), with one
            line on standard error saying why.
            """,
        subcommands: [
            InfoCommand.self, PlayCommand.self, RecordCommand.self, ConvertCommand.self, LibraryCommand.self,
            PlayersCommand.self,
            BankCommand.self,
            MonitorCommand.self,
            ReplayCommand.self,
            BenchCommand.self,
        ])

    static func main() async {
        // A benchmark's child: report this process's own peak memory as it exits.
        ChildPeakMemory.reportAtExitIfAsked()
        await main(nil)
    }
}
