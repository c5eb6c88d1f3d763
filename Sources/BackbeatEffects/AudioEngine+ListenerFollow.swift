import BackbeatCapture
import BackbeatEngine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a game with a camera and a character puts the listener's ears
/// (``AudioEngine/moveListener(camera:orientation:character:ears:)``).
public enum AudioListenerEars: Sendable, Hashable {
    /// At the camera, facing where it looks: what a first-person or
    /// free-camera game wants.
    case camera
    /// At the character, facing where the camera looks: a third-person game,
    /// where sounds near the hero are near, and left and right match the screen.
    case character
}

extension AudioEngine {
    /// Moves the listener with a game object, once per game frame: the
    /// listener stands at `position`, facing `orientation` if given, and its
    /// ``listenerVelocity`` (the Doppler shift's) is the distance moved since
    /// the previous call over the engine time between them. The first call,
    /// and a jump faster than half the speed of sound (a teleport, a respawn,
    /// a camera cut), give a velocity of zero. Calls within the same engine
    /// frame move the listener and keep the velocity.
    ///
    /// Setting ``listenerPosition`` by hand starts over: the next call here
    /// has no previous place to measure from. A point that is not finite, or
    /// an orientation that ``listenerVectorOrientation`` would ignore, is
    /// ignored.
    ///
    /// - Parameters:
    ///   - position: Where the listener stands, in metres.
    ///   - orientation: Where it faces; nil keeps its orientation.
    public func moveListener(to position: Audio3DPoint, orientation: Audio3DVectorOrientation? = nil) {
        guard position.isFinite else { return }
        withLock {
            recordLocked(.effectsListenerMove) { encoder in
                EffectsCaptureCoding.encode(position, into: &encoder)
                encoder.appendOptional(orientation) {
                    EffectsCaptureCoding.encode($1.forward, into: &$0)
                    EffectsCaptureCoding.encode($1.up, into: &$0)
                }
            }
            let listener = listenerLocked
            let now = currentFrameLocked
            if let orientation { _ = listener.setVectors(orientation) }
            if let followed = listener.followed, now > followed.frame {
                let last = followed.position
                let seconds = Float(Double(now - followed.frame) / Double(sampleRate))
                let v = Audio3DPoint(
                    x: (position.x - last.x) / seconds, y: (position.y - last.y) / seconds,
                    z: (position.z - last.z) / seconds)
                let speed = (v.x * v.x + v.y * v.y + v.z * v.z).squareRoot()
                listener.velocity = speed.isFinite && speed < listener.speedOfSound / 2 ? v : .zero
            } else if listener.followed == nil {
                listener.velocity = .zero
            }
            listener.position = position
            listener.followed = (position, now)
            listener.applyLocked()
            existingEffectsLocked?.pool?.audibilityDirty = true
        }
    }

    /// Moves the listener with a game's camera and character, once per game
    /// frame: its ears at the camera or at the character (`ears`), facing the
    /// way the camera looks, with its velocity derived as
    /// ``moveListener(to:orientation:)`` derives it.
    ///
    /// - Parameters:
    ///   - camera: The camera's position, in metres.
    ///   - orientation: The way the camera looks.
    ///   - character: The character's position, in metres.
    ///   - ears: Whether the listener hears from the camera or the character.
    public func moveListener(
        camera: Audio3DPoint, orientation: Audio3DVectorOrientation, character: Audio3DPoint,
        ears: AudioListenerEars
    ) {
        moveListener(to: ears == .camera ? camera : character, orientation: orientation)
    }
}
