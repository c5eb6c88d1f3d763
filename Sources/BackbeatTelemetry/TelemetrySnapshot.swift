/// What a monitor sees of a running engine at one moment of engine time: one
/// line of the monitor protocol (`"type": "snapshot"`), as newline-delimited
/// JSON. The field names are the protocol's; `Docs` (the Monitoring article)
/// describes each, and ``TelemetryProtocol/version`` says which shape this is.
package struct TelemetrySnapshot: Sendable, Codable, Equatable {
    /// Always `"snapshot"`: tells snapshot lines from event and reply lines.
    package var type = "snapshot"
    /// The protocol version (``TelemetryProtocol/version``).
    package var version = TelemetryProtocol.version
    /// Engine time in seconds.
    package var time: Double
    /// The loudest voices (at most ``TelemetryProtocol/maximumListedVoices``),
    /// loudest first.
    package var voices: [Voice]
    /// Every logical voice counted by state, listed or not.
    package var voiceCounts: VoiceCounts
    /// Every bus, the master first, then in creation order.
    package var buses: [Bus]
    /// Every registered game parameter.
    package var parameters: [Parameter]
    /// Every mix snapshot the game has defined or activated, by name.
    package var snapshots: [MixSnapshot]
    /// Every music player the engine knows.
    package var music: [MusicPlayer]
    /// Where the listener is, or nil before the game places it.
    package var listener: Listener?
    /// The engine's own figures.
    package var engine: Engine

    package init(
        time: Double, voices: [Voice] = [], voiceCounts: VoiceCounts = VoiceCounts(), buses: [Bus] = [],
        parameters: [Parameter] = [], snapshots: [MixSnapshot] = [], music: [MusicPlayer] = [],
        listener: Listener? = nil, engine: Engine
    ) {
        self.time = time
        self.voices = voices
        self.voiceCounts = voiceCounts
        self.buses = buses
        self.parameters = parameters
        self.snapshots = snapshots
        self.music = music
        self.listener = listener
        self.engine = engine
    }

    /// One logical voice.
    package struct Voice: Sendable, Codable, Equatable {
        /// The voice's id, stable while it lives; `--set voice.ID.stop=on` stops it.
        package var id: UInt64
        /// The sound's file name (last path component) or the sound event's name.
        package var name: String
        /// The bus it plays on.
        package var bus: String
        /// `"playing"`, `"virtual"`, `"dormant"` or `"stopping"` (``VoiceState``).
        package var state: VoiceState
        /// Why it is in that state when it is not plainly playing: `"outOfEarshot"`,
        /// `"voiceLimit"`, `"paused"`, `"fadingOut"` and the like; nil when playing.
        package var reason: String?
        /// Its gain in dB after distance, cone, occlusion and buses (−120 for silence).
        package var gainDB: Double
        /// `[x, y, z]` in metres, or nil for a voice that is not positioned.
        package var position: [Double]?

        package init(
            id: UInt64, name: String, bus: String, state: VoiceState, reason: String? = nil, gainDB: Double,
            position: [Double]?
        ) {
            self.id = id
            self.name = name
            self.bus = bus
            self.state = state
            self.reason = reason
            self.gainDB = gainDB
            self.position = position
        }
    }

    /// A voice's state, as the protocol spells it.
    package enum VoiceState: String, Sendable, Codable, Equatable, CaseIterable {
        case playing, virtual, dormant, stopping
    }

    /// Every logical voice by state: the listed ones and those a snapshot
    /// with thousands of voices leaves out.
    package struct VoiceCounts: Sendable, Codable, Equatable {
        package var playing = 0
        package var virtual = 0
        package var dormant = 0
        package var stopping = 0
        /// How many voices the snapshot did not list.
        package var unlisted = 0

        package init(playing: Int = 0, virtual: Int = 0, dormant: Int = 0, stopping: Int = 0, unlisted: Int = 0) {
            self.playing = playing
            self.virtual = virtual
            self.dormant = dormant
            self.stopping = stopping
            self.unlisted = unlisted
        }
    }

    /// One bus: its settings and its level.
    package struct Bus: Sendable, Codable, Equatable {
        /// The bus's name (`"master"`, `"music"`, `"effects"`, or the game's).
        package var name: String
        /// The parent bus's name, nil for the master.
        package var parent: String?
        /// The volume the game set (linear gain, 1 is unity).
        package var volume: Double
        /// The gain heard now, after fades, ducks and snapshots (linear).
        package var effectiveGain: Double
        /// The bus's peak level over the last snapshot period, in dBFS (−120 for silence).
        package var peakDB: Double
        /// The bus's RMS level over the last snapshot period, in dBFS (−120 for silence).
        package var rmsDB: Double
        package var muted: Bool
        package var soloed: Bool
        package var paused: Bool

        package init(
            name: String, parent: String?, volume: Double, effectiveGain: Double, peakDB: Double, rmsDB: Double,
            muted: Bool, soloed: Bool, paused: Bool
        ) {
            self.name = name
            self.parent = parent
            self.volume = volume
            self.effectiveGain = effectiveGain
            self.peakDB = peakDB
            self.rmsDB = rmsDB
            self.muted = muted
            self.soloed = soloed
            self.paused = paused
        }
    }

    /// One game parameter.
    package struct Parameter: Sendable, Codable, Equatable {
        package var name: String
        /// The value the game set.
        package var value: Double
        /// The value heard now (after slew).
        package var current: Double
        package var minimum: Double
        package var maximum: Double

        package init(name: String, value: Double, current: Double, minimum: Double, maximum: Double) {
            self.name = name
            self.value = value
            self.current = current
            self.minimum = minimum
            self.maximum = maximum
        }
    }

    /// One mix snapshot.
    package struct MixSnapshot: Sendable, Codable, Equatable {
        package var name: String
        package var active: Bool

        package init(name: String, active: Bool) {
            self.name = name
            self.active = active
        }
    }

    /// One music player.
    package struct MusicPlayer: Sendable, Codable, Equatable {
        /// `"music"` (MusicPlayer), `"queue"` (QueuePlayer) or `"adaptive"` (AdaptiveMusicPlayer).
        package var kind: String
        /// `"playing"`, `"paused"`, `"stopped"`, `"interrupted"` and the like.
        package var state: String
        /// The current item's title or file name, or the adaptive section's name; nil when none.
        package var item: String?
        /// Seconds into the current item.
        package var time: Double
        /// The player's volume (linear).
        package var volume: Double
        /// The bus it plays on.
        package var bus: String

        package init(kind: String, state: String, item: String?, time: Double, volume: Double, bus: String) {
            self.kind = kind
            self.state = state
            self.item = item
            self.time = time
            self.volume = volume
            self.bus = bus
        }
    }

    /// The listener.
    package struct Listener: Sendable, Codable, Equatable {
        /// `[x, y, z]` in metres.
        package var position: [Double]
        /// The direction the listener faces, `[x, y, z]`.
        package var forward: [Double]

        package init(position: [Double], forward: [Double]) {
            self.position = position
            self.forward = forward
        }
    }

    /// The engine's own figures.
    package struct Engine: Sendable, Codable, Equatable {
        /// OpenAL sources playing or held for voices and streams.
        package var sourcesInUse: Int
        /// OpenAL sources the device gave the engine.
        package var sourcesTotal: Int
        /// Stream underruns and update-period overruns since the engine opened.
        package var underruns: Int
        /// The update thread's CPU time over the last snapshot period, as a percentage of one core.
        package var updateCPUPercent: Double
        /// `"offline"`, `"file"` or `"device"`.
        package var output: String
        package var sampleRate: Int

        package init(
            sourcesInUse: Int, sourcesTotal: Int, underruns: Int, updateCPUPercent: Double, output: String,
            sampleRate: Int
        ) {
            self.sourcesInUse = sourcesInUse
            self.sourcesTotal = sourcesTotal
            self.underruns = underruns
            self.updateCPUPercent = updateCPUPercent
            self.output = output
            self.sampleRate = sampleRate
        }
    }
}
