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
        stinger = AudioAsset(url: stingerURL)
        player.bindLayer("drums", to: intensity, curve: Self.drumsCurve)
    }

    /// Fades the level music out over `duration` (the demo's quit fade), on the
    /// equal-power curve the other music and the pads fade on.
    func fadeOut(duration: MediaTime) { player.fadeOut(duration: duration) }
}
