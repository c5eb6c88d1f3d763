import BackbeatMedia
import BackbeatSupport

extension AudioSession {
    /// Lowers the music bus for a voice line or a reminder, then restores it.
    ///
    /// The level falls by `decibels` over `attack`, stays down for `hold`, and
    /// comes back over `release`, all in engine time from now.
    ///
    /// ```swift
    /// try session.duck(music: MediaTime(seconds: 2.5), by: 12)   // a 2.5 s line, 12 dB down
    /// ```
    ///
    /// - Parameters:
    ///   - hold: How long the music stays down once it has fallen: the line's length.
    ///   - decibels: How far it goes down, above zero (12 means -12 dB).
    ///   - attack: How long the fall takes; zero is a cut.
    ///   - release: How long the return takes; zero is a cut.
    /// - Throws: ``BackbeatError/Code/invalidArgument`` for a non-positive or
    ///   non-finite `decibels`, a negative `attack` or `release`, or a `hold` that
    ///   is not positive.
    public func duck(
        music hold: MediaTime, by decibels: Float,
        attack: MediaTime = MediaTime(value: 1, timescale: 10),
        release: MediaTime = MediaTime(value: 3, timescale: 10)
    ) throws {
        try requestDuck(music: hold, by: decibels, attack: attack, release: release)
    }

    /// ``duck(music:by:attack:release:)``, returning the request with the
    /// engine times at which each stage ends.
    @discardableResult
    package func requestDuck(
        music hold: MediaTime, by decibels: Float,
        attack: MediaTime = MediaTime(value: 1, timescale: 10),
        release: MediaTime = MediaTime(value: 3, timescale: 10)
    ) throws -> MusicDuck {
        func invalid(_ why: String) -> BackbeatError {
            BackbeatError(.invalidArgument, operation: "AudioSession.duck(music:by:)", reason: why)
        }
        guard decibels.isFinite, decibels > 0 else { throw invalid("decibels must be positive, got \(decibels)") }
        guard hold > .zero else { throw invalid("hold must be positive, got \(hold.seconds)s") }
        guard attack >= .zero else { throw invalid("attack must not be negative, got \(attack.seconds)s") }
        guard release >= .zero else { throw invalid("release must not be negative, got \(release.seconds)s") }
        captured(.duck(hold: hold, decibels: decibels, attack: attack, release: release))
        let duck = MusicDuck(start: clock(), decibels: decibels, attack: attack, hold: hold, release: release)
        submit { s in
            Work(
                update: SessionUpdate(
                    cause: .duckRequest, time: duck.start, decision: s.decision,
                    actions: [.duckMusic(duck)], ignoredBecause: nil))
        }
        return duck
    }
}
