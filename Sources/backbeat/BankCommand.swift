import ArgumentParser
import Backbeat
import Foundation

/// `backbeat bank`: sound banks (sound events defined in JSON).
struct BankCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bank",
        abstract: "Work with sound banks: JSON files of sound events (see Backbeat.docc/Events.md).",
        subcommands: [Check.self])

    /// `backbeat bank check FILE`: validates a bank.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Validate a sound bank: its JSON, events, ranges, buses and sound files.",
            discussion: """
                Exits 0 and prints a summary (events, sound files, decoded size), or exits 1 with one line
                naming the file, the entry and the reason.
                """)

        @Argument(help: "The bank file (.json), or archive.zip:path/inside (its sounds in the same archive).")
        var file: String

        func run() async throws {
            do {
                if let (archive, path) = AudioArchive.entryReference(file) {
                    print(try SoundBank.check(archive: AudioArchive(url: archive), path: path))
                } else {
                    print(try SoundBank.check(contentsOf: URL(fileURLWithPath: file)))
                }
            } catch {
                printError(error)
                throw ExitCode.failure
            }
        }
    }
}
