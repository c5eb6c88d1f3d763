import ArgumentParser
import BackbeatBench

@main
struct BackbeatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backbeat",
        abstract:
            "Backbeat, the game audio engine: inspect outputs and files, play or render a file, record from a capture device, convert audio, manage a media library, list the desktop's media players, check sound banks.",
        subcommands: [
            InfoCommand.self, PlayCommand.self, RecordCommand.self, ConvertCommand.self, LibraryCommand.self,
            PlayersCommand.self,
            BankCommand.self,
            BenchCommand.self,
        ])

    static func main() async {
        // A benchmark's child: report this process's own peak memory as it exits.
        ChildPeakMemory.reportAtExitIfAsked()
        await main(nil)
    }
}
