/// Something that happened outside the game and changes what its audio may do.
///
/// On Linux only the game may know about a phone call or a silent mode, so the
/// host game posts these with ``AudioSession/post(_:)``. A `ScriptedEnvironment`
/// posts them at engine times for tests and demos, and the engine posts
/// ``routeChange(reason:previousRoute:currentRoute:)`` with
/// ``RouteChangeReason/oldDeviceUnavailable`` when its OpenAL device disconnects.
public enum SessionEvent: Sendable, Hashable, CustomStringConvertible {
    /// Something more important took the audio, such as a call: music players go
    /// to `interrupted` and effects pause.
    case interruptionBegan
    /// The interruption is over. With `shouldResume`, the music that was playing
    /// resumes where it was; without it, the players stay paused.
    case interruptionEnded(shouldResume: Bool)
    /// The output changed. `previousRoute` is the route before the change.
    case routeChange(reason: RouteChangeReason, previousRoute: AudioRoute, currentRoute: AudioRoute)
    /// The silent (ring/silent) switch moved. On mutes the game's own sounds in
    /// ``AudioSession/Category/ambient`` and ``AudioSession/Category/soloAmbient``.
    case silentSwitch(on: Bool)
    /// Another program, named `name`, started playing audio.
    case otherAudioStarted(name: String)
    /// Another program, named `name`, stopped playing audio.
    case otherAudioStopped(name: String)

    /// The event in a few words, used as the reason of a ``SessionUpdate``.
    public var description: String {
        switch self {
        case .interruptionBegan: "interruption began"
        case .interruptionEnded(true): "interruption ended, should resume"
        case .interruptionEnded(false): "interruption ended without shouldResume"
        case .routeChange(.oldDeviceUnavailable, let previous, _): "\(previous.name) unplugged"
        case .routeChange(.newDeviceAvailable, _, let current): "\(current.name) connected"
        case .routeChange(.categoryChange, _, let current): "route changed to \(current.name) by a category change"
        case .silentSwitch(true): "silent switch on"
        case .silentSwitch(false): "silent switch off"
        case .otherAudioStarted(let name): "\(name) started playing"
        case .otherAudioStopped(let name): "\(name) stopped playing"
        }
    }
}
