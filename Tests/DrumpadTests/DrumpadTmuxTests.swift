import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import Foundation
import Testing

/// The drum pad demo typed at in a real terminal: tmux runs it in a pane on a
/// private tmux server, the test types lines into it (`send-keys`), reads the
/// screen (`capture-pane`) and records the sound server's monitor.
@Suite struct DrumpadTmuxTests {
    /// A tmux server of the test's own: its socket in the test's directory
    /// (gone with it), no configuration file.
    private struct Tmux {
        let socket: String
        let output: String

        /// Runs one tmux command; returns its standard output.
        ///
        /// Spawned with no signal blocked and the default actions: a test
        /// runner's threads block signals, and a tmux server started from one
        /// would pass that on to the demo in its pane, which then would not
        /// end on the hangup `kill-server` sends. Output goes to a file, since
        /// the server that `new-session` starts would hold a pipe open for good.
        @discardableResult
        func run(_ arguments: [String]) throws -> String {
            let argv = ["tmux", "-S", socket, "-f", "/dev/null"] + arguments
            let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
            let pid = try PrivateSoundServer.spawn(argv, environment: environment, output: output)
            let status = PrivateSoundServer.wait(pid, timeout: 30)
            try #require(
                status == 0, "tmux \(arguments.joined(separator: " ")) failed (status \(String(describing: status)))")
            return String(decoding: try Data(contentsOf: URL(fileURLWithPath: output)), as: UTF8.self)
        }

        /// The pane's text as it shows now.
        func screen() throws -> String { try run(["capture-pane", "-p", "-t", "drumpad"]) }

        /// Reads the screen until `condition` holds, and returns it; gives up
        /// (nil) after `limit` seconds, which only a hung or broken demo needs.
        func waitForScreen(limit: Double = 30, _ condition: (String) -> Bool) throws -> (screen: String, ok: Bool) {
            var text = try screen()
            for _ in 0..<Int(limit * 50) where !condition(text) {
                usleep(20_000)
                text = try screen()
            }
            return (text, condition(text))
        }

        /// Stops the tmux server and everything in it.
        func kill() { _ = try? run(["kill-server"]) }
    }

    /// Single-quotes `word` for the shell tmux runs the pane's command with.
    private static func quoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The pad whose attack best matches the recording at `onset`: the first
    /// 10 ms of each of a pad's hits is compared within 5 ms of there.
    private static func pad(at onset: Int, in samples: [Float], templates: [String: [[Float]]]) -> String? {
        let start = max(0, onset - 240)
        let end = min(samples.count / 2, onset + 240 + 480)
        let window = Array(samples[(2 * start)..<(2 * end)])
        let scores = templates.mapValues {
            $0.map { DrumpadDeviceTests.matchScores(of: $0, in: window).max() ?? 0 }.max() ?? 0
        }
        return scores.max { $0.value < $1.value }.flatMap { $0.value > 0.6 ? $0.key : nil }
    }

    @Test(
        "soundServer tmux: drumpad typed at in a terminal plays each pad as its line is entered and shows it on the screen"
    )
    func soundServerTmuxDrumpadPlaysEachTypedPad() throws {
        let server = try PrivateSoundServer(sinks: ["Backbeat-Pads"])
        defer { server.stop() }
        try withTemporaryDirectory { dir in
            let tmux = Tmux(
                socket: dir.appendingPathComponent("tmux-socket").path,
                output: dir.appendingPathComponent("tmux-output").path)
            defer { tmux.kill() }
            let environment = server.environment.merging(["ALSOFT_DRIVERS": "pulse"]) { $1 }
            // The pane runs the demo, then says how it ended and stays open so the screen can still be read.
            let command =
                (["env", "-u", "ALSOFT_CONF"] + environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                + [try DrumpadDemoTests.drumpad(), "--assets", Assets.root.appendingPathComponent("Assets").path])
                .map(Self.quoted).joined(separator: " ") + "; echo \"drumpad exited with status $?\"; exec sleep 600"
            let recording = try server.recordMonitor(of: "Backbeat-Pads")
            try tmux.run([
                "new-session", "-d", "-s", "drumpad", "-x", "120", "-y", "40", "-c", dir.path, command,
            ])
            let started = try tmux.waitForScreen {
                $0.contains("Backbeat drum pad") && $0.contains("last pad: none yet")
            }
            try #require(started.ok, "the demo's screen did not appear:\n\(started.screen)")

            // Three different pads and one again; not the maraca, whose shake swells over
            // 5 ms and has no attack sharp enough for the detector.
            let pads = ["bass", "snare", "tambourine", "bass"]
            for (index, pad) in pads.enumerated() {
                // The line shows as it is typed...
                try tmux.run(["send-keys", "-t", "drumpad", "-l", pad])
                let typed = try tmux.waitForScreen { $0.contains("> \(pad)") }
                #expect(typed.ok, "typing \(pad) did not show:\n\(typed.screen)")
                // ...and once entered, the pad is heard: the screen names it as the last pad heard.
                try tmux.run(["send-keys", "-t", "drumpad", "Enter"])
                let heard = try tmux.waitForScreen {
                    $0.contains("last pad: \(pad) at ") && $0.contains("(\(index + 1) heard)")
                }
                try #require(heard.ok, "\(pad) was not shown as heard:\n\(heard.screen)")
                // A pause between lines, as a person types, longer than the longest pad (0.6 s),
                // so each attack stands out of silence.
                usleep(700_000)
            }
            try tmux.run(["send-keys", "-t", "drumpad", "-l", "quit"])
            try tmux.run(["send-keys", "-t", "drumpad", "Enter"])
            let ended = try tmux.waitForScreen { $0.contains("drumpad exited with status") }
            let samples = try recording.stop()
            try #require(ended.ok, "drumpad did not quit:\n\(ended.screen)")
            #expect(ended.screen.contains("drumpad exited with status 0"), "\(ended.screen)")
            #expect(ended.screen.contains("Sound went to the sound device \"Backbeat-Pads\""), "\(ended.screen)")

            // Each line was heard once, in the order typed: an attack per line, each the typed pad's.
            let onsets = DrumpadDeviceTests.attacks(samples)
            // Each pad is a sound event (a seeded pick of its variations, pitch and
            // volume): the same lines rendered offline give each hit's attack.
            var templates: [String: [[Float]]] = [:]
            for (pad, hit) in zip(pads, try DrumpadDeviceTests.padTemplates(pads)) {
                templates[pad, default: []].append(Array(hit.prefix(480)))
            }
            let heard = onsets.map { Self.pad(at: $0, in: samples, templates: templates) }
            #expect(heard == pads, "pads heard at frames \(onsets): \(heard)")
            // Each sounded when its own line was entered, not held back and played together
            // later: the next line was typed at least 0.7 s after the screen showed the one
            // before, so the monitor hears them apart by about as much (0.5 s leaves room
            // for the device's latency to vary).
            let gaps = zip(onsets.dropFirst(), onsets).map { Double($0 - $1) / Double(PrivateSoundServer.sampleRate) }
            #expect(gaps.allSatisfy { $0 >= 0.5 }, "gaps between the pads heard (s): \(gaps)")
        }
    }
}
