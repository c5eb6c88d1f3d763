import ArgumentParser

@main
struct BackbeatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backbeat",
        abstract: "Backbeat, the game audio engine: inspect outputs and files, convert audio, manage a media library, list the desktop's media players.",
        subcommands: [InfoCommand.self, ConvertCommand.self, LibraryCommand.self, PlayersCommand.self, BenchCommand.self])
}
