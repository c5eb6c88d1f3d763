import ArgumentParser

@main
struct BackbeatCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backbeat",
        abstract: "Backbeat, the game audio engine: inspect outputs and files.",
        subcommands: [InfoCommand.self, LibraryCommand.self, BenchCommand.self])
}
