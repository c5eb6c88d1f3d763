import BackbeatMedia

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A request to lower the music bus for a while, for a voice line or a reminder.
///
/// All times are engine time: the level falls over ``attack`` from ``start``,
/// stays down for ``hold``, then comes back over ``release``.
package struct MusicDuck: Sendable, Hashable {
    /// When the request was made.
    package let start: MediaTime
    /// How far the music goes down, in decibels (positive: 12 means -12 dB).
    package let decibels: Float
    /// How long the fall takes.
    package let attack: MediaTime
    /// How long the music stays down once it has fallen.
    package let hold: MediaTime
    /// How long the return to the full level takes.
    package let release: MediaTime

    /// The linear gain the music bus reaches, `10^(-decibels/20)`.
    package var gain: Float { Float(pow(10, -Double(decibels) / 20)) }
    /// When the music is fully down.
    package var loweredAt: MediaTime { start + attack }
    /// When the release begins.
    package var releaseBegins: MediaTime { start + attack + hold }
    /// When the music is back at its full level.
    package var end: MediaTime { start + attack + hold + release }
}
