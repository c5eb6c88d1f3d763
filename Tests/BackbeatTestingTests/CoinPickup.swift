import Backbeat
import Foundation

/// The small game of the Testing article, as the article shows it: the sound
/// of taking a coin.
final class CoinPickup {
    let chime: SoundEffect

    /// - Parameters:
    ///   - engine: The game's engine.
    ///   - url: The chime's file.
    init(engine: AudioEngine, chime url: URL) {
        chime = SoundEffect(contentsOf: url, engine: engine)
    }

    /// Decodes the chime before the level starts, so the first coin is on time.
    func load() async throws { try await chime.preload() }

    /// The player takes a coin at `x` on screen (-1 left ... 1 right), heard at engine time `time`.
    @discardableResult
    func take(atScreenX x: Float, at time: MediaTime) -> Voice { chime.play(at: time, pan: x) }
}
