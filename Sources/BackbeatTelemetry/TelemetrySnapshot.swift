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
        /// `[x, y, z]` in metres, or nil for a voice that is not positioned
        /// (set to an array of any other length: nil). Kept as ``point``.
        package var position: [Double]? {
            get { point.map { [$0.x, $0.y, $0.z] } }
            set { point = newValue.flatMap(Point.init) }
        }
        /// ``position`` without an array: a snapshot lists up to 256 voices,
        /// ten times a second, and an array each is an allocation each.
        package var point: Point?

        package init(
            id: UInt64, name: String, bus: String, state: VoiceState, reason: String? = nil, gainDB: Double,
            position: [Double]?
        ) {
            self.init(
                id: id, name: name, bus: bus, state: state, reason: reason, gainDB: gainDB,
                point: position.flatMap(Point.init))
        }

        /// A voice whose position is given as a ``Point``.
        ///
        /// - Parameters:
        ///   - id: the voice's id.
        ///   - name: its sound's file name or its event's name.
        ///   - bus: the bus it plays on.
        ///   - state: its state.
        ///   - reason: why, when it is not plainly playing.
        ///   - gainDB: its gain in dB.
        ///   - point: where it is, nil when it is not positioned.
        package init(
            id: UInt64, name: String, bus: String, state: VoiceState, reason: String? = nil, gainDB: Double,
            point: Point?
        ) {
            self.id = id
            self.name = name
            self.bus = bus
            self.state = state
            self.reason = reason
            self.gainDB = gainDB
            self.point = point
        }

        private enum CodingKeys: String, CodingKey {
            case id, name, bus, state, reason, gainDB, position
        }

        /// Reads a voice as the protocol spells it, its position as `[x, y, z]` or absent.
        ///
        /// - Parameter decoder: the decoder.
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                id: try container.decode(UInt64.self, forKey: .id),
                name: try container.decode(String.self, forKey: .name),
                bus: try container.decode(String.self, forKey: .bus),
                state: try container.decode(VoiceState.self, forKey: .state),
                reason: try container.decodeIfPresent(String.self, forKey: .reason),
                gainDB: try container.decode(Double.self, forKey: .gainDB),
                position: try container.decodeIfPresent([Double].self, forKey: .position))
        }

        /// Writes the voice as the protocol spells it (the names the synthesized coding would use).
        ///
        /// - Parameter encoder: the encoder.
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(name, forKey: .name)
            try container.encode(bus, forKey: .bus)
            try container.encode(state, forKey: .state)
            try container.encodeIfPresent(reason, forKey: .reason)
            try container.encode(gainDB, forKey: .gainDB)
            try container.encodeIfPresent(position, forKey: .position)
        }

        /// A voice's position, in metres.
        package struct Point: Sendable, Equatable {
            package var x: Double
            package var y: Double
            package var z: Double

            package init(x: Double, y: Double, z: Double) {
                self.x = x
                self.y = y
                self.z = z
            }

            /// The point an `[x, y, z]` array gives; nil for any other length.
            ///
            /// - Parameter coordinates: the array.
            init?(_ coordinates: [Double]) {
                guard coordinates.count == 3 else { return nil }
                self.init(x: coordinates[0], y: coordinates[1], z: coordinates[2])
            }
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
