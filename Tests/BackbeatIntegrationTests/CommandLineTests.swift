import BackbeatTestFixtures
import Foundation
import Testing

/// What `backbeat` promises every caller: its exit statuses, and that its help says what they are.
@Suite struct CommandLineTests {
    @Test("An unknown flag exits 64, a bad value 1, and --help documents both")
    func exitStatuses() throws {
        let unknown = try BackbeatTool.run(["play", "--no-such-flag", "x.wav"])
        #expect(unknown.status == 64, "\(unknown.stderr)")
        try withTemporaryDirectory { dir in
            let song = dir.appendingPathComponent("song.wav")
            try Songs.write(Songs.sineFrames(0..<480), to: song)
            let out = dir.appendingPathComponent("out.wav").path
            let bad = try BackbeatTool.run(["play", song.path, "--duration", "-1", "--output", out])
            #expect(bad.status == 1, "\(bad.stderr)")
            #expect(bad.stderr.hasPrefix("backbeat: "), "one line saying why")
        }
        let help = try BackbeatTool.run(["--help"])
        #expect(help.status == 0)
        let text = help.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        #expect(
            text.contains("Exit statuses: 0 on success; 64 for a command line that cannot be parsed"), "\(help.stdout)")
        #expect(text.contains("1 when the command ran and failed"), "\(help.stdout)")
    }

    @Test("info's help says --json always prints an array")
    func infoJSONIsAlwaysAnArray() throws {
        let help = try BackbeatTool.run(["info", "--help"])
        let text = help.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        #expect(text.contains("always an array, even for one file"), "\(help.stdout)")
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("one.wav")
            try Songs.write(Songs.sineFrames(0..<480), to: url)
            let result = try BackbeatTool.run(["info", "--json", url.path])
            #expect(result.status == 0)
            let parsed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
            #expect((parsed as? [Any])?.count == 1)
        }
    }
}
