import Backbeat
import BackbeatEngine
import BackbeatMedia
import BackbeatMusic
import Foundation

/// Music-queue traffic: a looping `QueuePlayer` over generated songs while
/// the game loop inserts, removes, skips, seeks, pauses and fades at random.
/// Its stream's underruns count toward the soak's.
package final class QueueSoak: SoakParticipant {
    package let name = "queue"
    private var player: QueuePlayer?
    private var songs: [URL] = []
    private var directory: URL?
    private var nextChange = 0.0
    private(set) var changes = 0
    private var finalUnderruns = 0

    /// A queue load.
    package init() {}

    package func start(engine: AudioEngine) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "backbeat-soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.directory = directory
        // Three 6-second songs at different rates, so the stream resamples and seams change format.
        for (i, rate) in [48_000, 44_100, 32_000].enumerated() {
            let frames = rate * 6
            let frequency = 220.0 * Double(i + 2)
            var samples = [Float](repeating: 0, count: frames * 2)
            for f in 0..<frames {
                let v = Float(0.2 * sin(2 * Double.pi * frequency * Double(f) / Double(rate)))
                samples[2 * f] = v
                samples[2 * f + 1] = v
            }
            let url = directory.appendingPathComponent("song\(i).wav")
            try BenchFiles.writeWAV(
                try PCMBuffer(format: AudioFormat(sampleRate: rate, channelCount: 2), floats: samples), to: url)
            songs.append(url)
        }
        let player = try QueuePlayer(engine: engine, items: songs.map(PlayerItem.init(url:)))
        player.loopsQueue = true
        player.play()
        self.player = player
    }

    package func tick(engine: AudioEngine, random: inout SeededRandom, second: Double) {
        guard let player, second >= nextChange else { return }
        nextChange = second + 0.5 + 2.5 * random.nextUnit()
        changes += 1
        switch random.next(in: 0..<7) {
        case 0: try? player.insert(PlayerItem(url: songs[random.next(in: 0..<songs.count)]), after: nil)
        case 1: if let item = player.items().dropFirst().last { player.remove(item) }
        case 2: player.skipToNextItem()
        case 3: player.seek(to: MediaTime(seconds: 5 * random.nextUnit()))
        case 4: player.pause()
        case 5: player.play()
        default: player.fade(to: Float(0.3 + 0.7 * random.nextUnit()), duration: MediaTime(seconds: 0.5))
        }
        if player.items().isEmpty {
            for url in songs { try? player.insert(PlayerItem(url: url), after: nil) }
        }
    }

    package func finish(engine: AudioEngine) {
        finalUnderruns = player?.underrunCount ?? finalUnderruns
        player?.removeAllItems()
        player = nil
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    package var underruns: Int { player?.underrunCount ?? finalUnderruns }

    package var summary: String { "\(changes) queue changes, \(songs.count) songs, \(underruns) stream underruns" }
}
