import Backbeat
import Foundation

/// The demo's level music: an ``AdaptiveMusicPlayer`` on the sections in
/// `Assets/Level` (explore and combat, each a `pads` and a `drums` stem), the
/// game parameter "intensity" that brings in the drums layer, and the stinger.
final class LevelMusic: @unchecked Sendable {
    // @unchecked: the members are set once; the player and parameter lock themselves.

    /// The sections, by name, in the folder as `NAME-pads.ogg` and `NAME-drums.ogg`.
    static let sectionNames = ["explore", "combat"]
    /// Where the drums layer comes in: silent up to 0.25, full at 1.
    static let drumsCurve = try! ParameterCurve(points: [(0, 0), (0.25, 0), (1, 1)])

    let player: AdaptiveMusicPlayer
    let intensity: GameParameter
    /// Falls from 1 to 0 over a second at quit (the player's volume follows it).
    let volume: GameParameter
    let stinger: AudioAsset

    /// The drums layer's gain at `intensity`.
    static func drumsGain(_ intensity: Float) -> Float {
        min(max(drumsCurve.output(for: intensity, in: 0...1), 0), 1)
    }

    /// The level music in `folder`, or nil when the folder has none of it.
    /// - Throws: the player's errors for files that are there but cannot be opened.
    init?(engine: AudioEngine, folder: URL) throws {
        let stingerURL = folder.appendingPathComponent("stinger.ogg")
        guard FileManager.default.fileExists(atPath: stingerURL.path) else { return nil }
        let sections = Self.sectionNames.map { name in
            MusicSection(
                name: name,
                stems: ["pads", "drums"].map {
                    MusicStem(layer: $0, asset: AudioAsset(url: folder.appendingPathComponent("\(name)-\($0).ogg")))
                })
        }
        player = try AdaptiveMusicPlayer(engine: engine, sections: sections)
        intensity = try GameParameter(name: "intensity", engine: engine)
        volume = try GameParameter(name: "level volume", initialValue: 1, slewPerSecond: 1, engine: engine)
        stinger = AudioAsset(url: stingerURL)
        player.bindLayer("drums", to: intensity, curve: Self.drumsCurve)
        player.bindVolume(to: volume)
    }

    /// Fades the level music out over a second (the demo's quit fade).
    func fadeOut() { volume.value = 0 }
}
