import Backbeat
import BackbeatLibrary
import BackbeatSupport
import Foundation
import Synchronization

/// The drum pad demo: four pads over a music queue, session rules a person can
/// try, driven one command at a time.
///
/// The executable is a thin shell around this type (options, stdin, the
/// terminal, signals); tests drive it in-process on a `.file` or `.offline`
/// engine, where every `wait` is engine time and the result is exact.
///
/// ```swift
/// let demo = try Drumpad(engine: engine, drums: assets.appendingPathComponent("Drums"),
///                        library: library, music: try? ApplicationMusic(engine: engine, library: library),
///                        say: { print($0) })
/// demo.run(["bass", "wait 0.5", "snare 100", "quit"])
/// ```
public final class Drumpad: @unchecked Sendable {
    // @unchecked: the command state below (grid, generator, tempo cache, picker,
    // finished) is read and written only while `commandLock` is held; the status
    // lives in a locked box; everything else is immutable or thread-safe itself.

    /// The engine the demo plays on.
    public let engine: AudioEngine
    /// The music library, or nil when none could be opened.
    public let library: MediaLibrary?
    /// The music the music commands drive: the engine's application player,
    /// or nil when none could be made (the pads still play).
    public let music: ApplicationMusic?
    /// The four pads: sound events, each a few variations of its drum.
    let pads: [DrumpadCommand.Pad: SoundEvent]
    /// The pad each variation's sound belongs to, by sound name (for the status line).
    let padBySoundName: [String: DrumpadCommand.Pad]
    let say: @Sendable (String) -> Void
    /// The level music (an adaptive music player), when the assets have it.
    let level: LevelMusic?
    let commandLock = Lock()
    let quitRequested = Atomic<Bool>(false)
    let statusBox = LockedValueBox(DrumpadStatus())
    let statusObservers = LockedValueBox<[@Sendable (DrumpadStatus) -> Void]>([])
    var grid: DrumpadCommand.Quantize
    /// Where a script stands in engine time on a real-time output: the end of
    /// its last `wait`. Pads after a wait play exactly there (`play(at:)`), so
    /// a script keeps its rhythm to the frame however late the wait wakes.
    /// Nil when nothing is timed (typed lines play at once).
    var scriptTime: MediaTime?
    var generator: SplitMix64
    /// Where `place` put each pad; a pad not here plays 2D at its pan.
    var placements: [DrumpadCommand.Pad: Audio3DPoint] = [:]
    /// Where `occlude` put each pad, in dB; a pad not here is clear.
    var occlusions: [DrumpadCommand.Pad: Float] = [:]
    /// Whether `reverb` set a preset: pad hits then send to it.
    var reverbOn = false
    /// The level `geometry` loaded, if any.
    var acoustics: DrumpadAcoustics?
    /// The pause menu's snapshot while it is on.
    var menu: ActiveMixSnapshot?
    var tempoCache: [UInt64: Int] = [:]
    var picker: TerminalPicker?
    var isFinished = false
    /// The bank `bank FILE` loaded (see `Drumpad+Bank.swift`), and what `pad N EVENT` mapped.
    var bank: SoundBank?
    var padEvents: [DrumpadCommand.Pad: String] = [:]

    /// How long the quit fade lasts.
    public static let fadeOutDuration = MediaTime(value: 1, timescale: 1)
    /// Where each pad sits in the stereo field.
    static let pans: [DrumpadCommand.Pad: Float] = [.snare: 0, .bass: 0, .tambourine: 0.35, .maraca: -0.35]

    /// Loads the pads from `drums`: the sound bank `pads.json` there (an event
    /// per pad, random among its variations, avoiding the last one, with a small
    /// pitch and volume range), or without one, `snare.wav`, `bass.wav`,
    /// `tambourine.wav` and `maraca.wav` as one-sound events. Sets the session to playback with mixWithOthers (as
    /// DrumDub did) and activates it, and queues the library's songs.
    ///
    /// - Parameters:
    ///   - say: receives every line the demo prints (results, errors, session decisions).
    /// - Throws: ``DrumpadError`` when the bank is bad, lacks a pad, or a pad's sound cannot be loaded.
    public init(
        engine: AudioEngine, drums: URL, library: MediaLibrary?, music: ApplicationMusic?,
        quantize: DrumpadCommand.Quantize = .off, seed: UInt64 = 8,
        say: @escaping @Sendable (String) -> Void
    ) throws {
        self.engine = engine
        self.library = library
        self.music = music
        self.say = say
        self.grid = quantize
        self.generator = SplitMix64(seed: seed)
        var pads: [DrumpadCommand.Pad: SoundEvent] = [:]
        let bankURL = drums.appendingPathComponent("pads.json")
        if FileManager.default.fileExists(atPath: bankURL.path) {
            let bank: SoundBank
            do { bank = try SoundBank(contentsOf: bankURL, engine: engine) } catch {
                throw DrumpadError("cannot load the pads: \(error)")
            }
            for pad in DrumpadCommand.Pad.allCases {
                guard let event = bank[pad.rawValue] else {
                    throw DrumpadError("cannot load the pads: \(bankURL.path) has no \"\(pad.rawValue)\" event")
                }
                pads[pad] = event
            }
        } else {
            for pad in DrumpadCommand.Pad.allCases {
                let sound = SoundEffect(contentsOf: drums.appendingPathComponent("\(pad.rawValue).wav"), engine: engine)
                let event = try SoundEvent(name: pad.rawValue, sounds: [sound])
                event.maximumInstances = 8
                pads[pad] = event
            }
        }
        var padBySoundName: [String: DrumpadCommand.Pad] = [:]
        for (pad, event) in pads {
            // Each pad keeps its place in the stereo field; the bank varies the rest.
            let pan = Self.pans[pad] ?? 0
            event.randomization.pan = pan...pan
            for sound in event.sounds {
                if case .failure(let error) = Self.preload(sound) {
                    throw DrumpadError("cannot load the \(pad.rawValue) pad: \(error)")
                }
                padBySoundName[sound.name] = pad
            }
        }
        self.padBySoundName = padBySoundName
        level = try LevelMusic(
            engine: engine, folder: drums.deletingLastPathComponent().appendingPathComponent("Level"))
        self.pads = pads
        statusBox.withLockedValue { $0.quantize = quantize }

        engine.observe { [weak self] event in self?.handle(event) }
        engine.session.observe { [weak self] update in
            self?.report("session: \(update.reason)")
            self?.refreshStatus()
        }
        music?.onChange { [weak self] in self?.refreshStatus() }
        do {
            try engine.session.setCategory(.playback, options: .mixWithOthers)
        } catch {
            report("session: \(error)")
        }
        engine.session.setActive(true)
        queueLibrary()
        refreshStatus()
    }

    /// Loads a sound and waits for it (the loader runs on its own queue and reports there).
    private static func preload(_ sound: SoundEffect) -> Result<Void, BackbeatError> {
        let outcome = LockedValueBox<Result<Void, BackbeatError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        sound.preload { result in
            outcome.withLockedValue { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLockedValue { $0 } ?? .success(())
    }

    /// At start the queue holds the library's songs, in the songs query's order.
    private func queueLibrary() {
        guard let library else { return }
        do {
            let songs = try MediaQuery.songs(in: library).items
            guard !songs.isEmpty else {
                report("library: no songs in \(library.roots.map(\.path).joined(separator: ", "))")
                return
            }
            try availableMusic().setQueue(songs)
            report("library: \(songs.count) songs queued")
        } catch {
            report("library: \(error)")
        }
    }

    // MARK: Running

    /// Runs every line of `lines`, then finishes (the quit fade) at the end
    /// of input, unless a `quit` came first.
    public func run(_ lines: some Sequence<String>) {
        for line in lines {
            guard perform(line: line), !quitRequested.load(ordering: .relaxed) else { break }
        }
        finish()
    }

    /// Parses and runs one line. A bad line prints one line saying why.
    /// - Returns: false once the demo has finished (after `quit`).
    @discardableResult
    public func perform(line: String) -> Bool {
        commandLock.lock()
        defer { commandLock.unlock() }
        guard !isFinished else { return false }
        if picker != nil {
            performPicker(line)
            return true
        }
        let command: DrumpadCommand?
        do {
            command = try DrumpadCommand.parse(line)
        } catch {
            report(error.description)
            return true
        }
        guard let command else { return true }
        return performLocked(command)
    }

    /// Runs one command.
    /// - Returns: false once the demo has finished (after `quit`).
    @discardableResult
    public func perform(_ command: DrumpadCommand) -> Bool {
        commandLock.withLock { performLocked(command) }
    }

    /// ``perform(_:)`` with `commandLock` held.
    private func performLocked(_ command: DrumpadCommand) -> Bool {
        guard !isFinished else { return false }
        defer { refreshStatus() }
        switch command {
        case let .pad(pad, velocity): hit(pad, velocity: velocity)
        case let .quantize(newGrid):
            grid = newGrid
            updateStatus { $0.quantize = newGrid }
            report(
                newGrid == .off
                    ? "quantize: off, pads play at once"
                    : "quantize: pads snap to the next \(newGrid.rawValue) of the now-playing song's tempo")
        case let .session(category, option): setSession(category, option)
        case let .environment(event): post(event)
        case let .place(pad, point):
            placements[pad] = point
            updateStatus { $0.placements[pad] = point }
            refreshLevelMap()
            report(
                point.map {
                    "\(pad.rawValue): placed at x \(DrumpadCommand.number($0.x)) y \(DrumpadCommand.number($0.y)) "
                        + "z \(DrumpadCommand.number($0.z)) m"
                } ?? "\(pad.rawValue): back in 2D")
        case let .turn(degrees):
            var heading = engine.listenerAngularOrientation
            heading.yaw = degrees
            engine.listenerAngularOrientation = heading
            updateStatus { $0.heading = degrees }
            report("turn: facing \(DrumpadCommand.number(degrees)) degrees right of -Z")
        case let .hrtf(on):
            engine.isHRTFEnabled = on
            let enabled = engine.isHRTFEnabled
            report(
                enabled == on
                    ? "hrtf: \(on ? "on, placed pads are rendered for headphones" : "off")"
                    : "hrtf: not available on this output, still \(enabled ? "on" : "off")")
        case let .reverb(preset): setReverb(preset)
        case let .occlude(pad, decibels):
            occlusions[pad] = decibels == 0 ? nil : decibels
            report(
                decibels == 0
                    ? "\(pad.rawValue): clear" : "\(pad.rawValue): occluded by \(DrumpadCommand.number(decibels)) dB")
        case let .menu(on): setMenu(on)
        case let .wait(duration): wait(duration, interruptible: true)
        case let .intensity(value): setIntensity(value)
        case let .section(name): changeSection(to: name)
        case .stinger: playStinger()
        case let .bank(path): loadBank(path)
        case let .event(name): playEvent(name)
        case let .mapPad(pad, name): mapPad(pad, to: name)
        case let .geometry(file): loadGeometry(file)
        case let .door(name, amount): setDoor(name, amount)
        case let .listener(point): moveListener(to: point)
        case .map: printMap()
        case .quit:
            finishLocked()
            return false
        case .play, .pause, .toggle, .next, .previous, .seek, .stop, .repeatMode, .shuffle, .random, .pick, .nowPlaying:
            performMusic(command)
        }
        return true
    }

    /// Asks the demo to stop soon, from any thread (a signal): a running `wait` ends at once.
    public func requestQuit() {
        quitRequested.store(true, ordering: .relaxed)
    }

    /// Fades everything out over ``fadeOutDuration`` of engine time and shuts
    /// the engine down. Idempotent; safe from any thread.
    public func finish() {
        requestQuit()
        commandLock.lock()
        defer { commandLock.unlock() }
        finishLocked()
    }

    private func finishLocked() {
        guard !isFinished else { return }
        isFinished = true
        report("quit: fading out over \(DrumpadCommand.seconds(Self.fadeOutDuration)) s")
        // One fade, the demo's: the music players' own equal-power fade-outs (the
        // curve shutdown uses) and the same curve on the effects bus for the pads,
        // over the same second, so the sum falls monotonically to silence.
        music?.fadeOut(duration: Self.fadeOutDuration)
        level?.fadeOut(duration: Self.fadeOutDuration)
        engine.effectsBus.fade(to: 0, duration: Self.fadeOutDuration, curve: .equalPower)
        if menu != nil {
            // The menu's snapshot holds the pads' volume, over the bus's own fade:
            // a snapshot above it fades them from the menu's level instead.
            let silent = MixSnapshot(name: "quit", buses: ["effects": .init(volume: 0)])
            do {
                try engine.activate(
                    silent, over: Self.fadeOutDuration, curve: .equalPower, priority: Self.menuPriority + 1)
            } catch {
                report("quit: \(error)")
            }
        }
        // One more update and the output latency, so the last frame of the fade is out.
        wait(
            Self.fadeOutDuration + MediaTime(frames: Int64(engine.updateInterval), sampleRate: engine.sampleRate)
                + engine.outputLatency, interruptible: false)
        refreshStatus()
        // The music is silent already: shutdown must not add a second fade (a second of silence) after it.
        engine.shutdownFadeDuration = .zero
        engine.shutdown()
    }

    // MARK: Environment

    /// How much of each pad hit feeds the reverb while one is set.
    static let reverbBlend: Float = 0.5
    /// The pause menu: a low-pass at this cutoff, 10 dB down, over this long.
    static let menuCutoff: Float = 600
    static let menuDepth: Float = -10
    static let menuTransition = MediaTime(value: 3, timescale: 10)

    private func setReverb(_ preset: String?) {
        guard let preset, let reverb = try? AudioEnvironmentReverbParameters(preset: preset) else {
            var off = engine.reverbParameters
            off.enable = false
            engine.reverbParameters = off
            reverbOn = false
            report("reverb: off")
            return
        }
        engine.reverbParameters = reverb
        reverbOn = true
        report("reverb: \(preset), \(DrumpadCommand.seconds(reverb.decayTime.converted(to: 1_000_000))) s decay")
    }

    /// The pause menu as a mix snapshot: the pads (the effects bus) and the
    /// music muffled by a low-pass and 10 dB down.
    static let pauseMenu: MixSnapshot = {
        let muffled = MixSnapshot.BusSettings(
            volume: pow(10, menuDepth / 20), filter: .lowPass(cutoff: menuCutoff))
        return MixSnapshot(name: "pause menu", buses: ["effects": muffled, "music": muffled])
    }()

    /// The pause menu's priority, and the quit fade's above it.
    static let menuPriority = 10

    private func setMenu(_ on: Bool) {
        do {
            if on, menu == nil {
                menu = try engine.activate(
                    Self.pauseMenu, over: Self.menuTransition, curve: .exponential, priority: Self.menuPriority)
            } else if !on, let active = menu {
                menu = nil
                try active.release(over: Self.menuTransition, curve: .exponential)
            }
        } catch {
            report("menu: \(error)")
            return
        }
        report(on ? "menu: on, pads and music muffled and 10 dB down" : "menu: off")
    }

    /// Sends a new hit to the reverb and behind its pad's wall, if any.
    private func placeInEnvironment(_ voice: Voice, _ pad: DrumpadCommand.Pad) {
        if reverbOn { voice.reverbBlend = Self.reverbBlend }
        if let decibels = occlusions[pad] { voice.occlusion = decibels }
    }

    // MARK: Level music

    private func setIntensity(_ value: Float) {
        guard let level else { return report("intensity: no level music in the assets") }
        level.intensity.value = value
        updateStatus { $0.intensity = value }
        report(
            "intensity: \(DrumpadCommand.number(value)), drums layer at \(DrumpadCommand.number(LevelMusic.drumsGain(value)))"
        )
    }

    private func changeSection(to name: String) {
        guard let level else { return report("section: no level music in the assets") }
        guard level.player.sectionNames.contains(name) else {
            return report(
                "section: no section named \"\(name)\" (have \(level.player.sectionNames.joined(separator: ", ")))")
        }
        do {
            let starting = level.player.currentSection == nil
            let time =
                starting
                ? try level.player.play(section: name) : try level.player.transition(to: name, quantization: .bar)
            updateStatus { $0.section = name }
            report(
                "section: \(name) \(starting ? "starts" : "on the next bar") at "
                    + "\(DrumpadCommand.seconds(time.converted(to: 1_000_000))) s")
        } catch {
            report("section: \(error)")
        }
    }

    private func playStinger() {
        guard let level else { return report("stinger: no level music in the assets") }
        guard level.player.currentSection != nil || level.player.upcomingSection != nil else {
            return report("stinger: no level music playing (start it with section explore)")
        }
        do {
            let time = try level.player.playStinger(level.stinger, quantization: .beat)
            report("stinger: on the next beat at \(DrumpadCommand.seconds(time.converted(to: 1_000_000))) s")
        } catch {
            report("stinger: \(error)")
        }
    }

    // MARK: Pads

    private func hit(_ pad: DrumpadCommand.Pad, velocity: Int) {
        if padEvents[pad] != nil {
            hitMapped(pad, velocity: velocity)
            return
        }
        guard let event = pads[pad] else { return }
        let gain = DrumpadCommand.Pad.gain(forVelocity: velocity)
        let position = placements[pad]
        let scripted = scriptedTime()
        // The level hears the new voices before they sound.
        defer { acoustics?.simulation.update() }
        guard grid != .off else {
            for voice in event.play(at: scripted, volume: gain, position: position) { placeInEnvironment(voice, pad) }
            return
        }
        let beats = beatGrid()
        let time = beats.nextPoint(atOrAfter: scripted ?? engine.currentTime, sampleRate: engine.sampleRate)
        for voice in event.play(at: time, volume: gain, position: position) { placeInEnvironment(voice, pad) }
        report(
            "\(pad.rawValue): on the \(grid.rawValue) at \(DrumpadCommand.seconds(time.converted(to: 1_000_000))) s "
                + "(\(beats.beatsPerMinute) BPM)")
    }

    /// The grid of the now-playing song (its BPM tag, beats counted from its
    /// start), or of ``BeatGrid/defaultBeatsPerMinute`` from engine time zero
    /// when no song is playing.
    func beatGrid() -> BeatGrid {
        if let music, (try? music.playbackState()) == .playing, let item = try? music.nowPlayingItem(),
            let position = try? music.currentPlaybackTime()
        {
            // The player's position counts frames mixed; a frame mixed now is heard an output latency later,
            // and a pad played at a time is heard at that time, so the song's beats are heard latency-late.
            return BeatGrid(
                beatsPerMinute: tempo(of: item), origin: engine.currentTime - position + engine.outputLatency,
                divisionsPerBeat: grid.divisionsPerBeat)
        }
        return BeatGrid(
            beatsPerMinute: BeatGrid.defaultBeatsPerMinute, origin: .zero, divisionsPerBeat: grid.divisionsPerBeat)
    }

    /// An item's BPM tag, or the default tempo.
    func tempo(of item: MediaItem) -> Int {
        if let known = tempoCache[item.persistentID] { return known }
        let asset = AudioAsset(url: item.assetURL)
        let tempo =
            (try? Self.blocking { try await asset.load(.tags) })?.beatsPerMinute ?? BeatGrid.defaultBeatsPerMinute
        tempoCache[item.persistentID] = tempo
        return tempo
    }

    /// Where ``blocking(_:)`` runs its work: off the cooperative pool.
    private static let executor = DispatchTaskExecutor(label: "drumpad async work")

    /// Runs async work to its end from synchronous code. The work runs on the
    /// demo's own executor, not on the cooperative pool, so the wait ends even
    /// when the caller is a pool thread (Swift Testing runs tests there).
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = LockedValueBox<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: executor) {
            do {
                let value = try await work()
                outcome.withLockedValue { $0 = .success(value) }
            } catch {
                outcome.withLockedValue { $0 = .failure(error) }
            }
            done.signal()
        }
        done.wait()
        return try outcome.withLockedValue { $0 }!.get()
    }

    // MARK: Time

    /// Lets `duration` of engine time pass: rendered at once on `.offline` and
    /// fast `.file` outputs, waited in real time on a device. An interruptible
    /// wait ends early when ``requestQuit()`` is called.
    func wait(_ duration: MediaTime, interruptible: Bool) {
        let rate = engine.sampleRate
        let step = Int64(rate / 10)
        switch engine.output {
        case .offline, .file(_, _, .asFastAsPossible):
            var remaining = duration.frames(atSampleRate: rate, rounding: .nearest)
            while remaining > 0 {
                if interruptible, quitRequested.load(ordering: .relaxed) { return }
                let chunk = min(remaining, step)
                do {
                    try engine.advance(by: MediaTime(frames: chunk, sampleRate: rate))
                } catch {
                    report("wait: \(error)")
                    return
                }
                remaining -= chunk
            }
        case .device, .file:
            // The wall clock only decides when to look again; engine time
            // decides when the wait is over. A wait runs on from where the
            // script stands, not from whenever the last one woke, and wakes
            // early enough for what follows to be scheduled on its frame.
            let now = engine.currentTime
            let start = scriptedTime() ?? now
            let target = start + duration
            scriptTime = target
            let wake = target - scheduleAhead
            while engine.isRunning, engine.currentTime < wake {
                if interruptible, quitRequested.load(ordering: .relaxed) {
                    scriptTime = nil
                    return
                }
                usleep(2_000)
            }
        }
    }

    /// How early a wait on a real-time output wakes before its end: the
    /// output's latency and 100 ms, so that `play(at:)` of the next pad is in
    /// time to start on its frame even when this process is scheduled late
    /// (an early `play(at:)` simply waits in the engine for its frame).
    var scheduleAhead: MediaTime {
        engine.outputLatency + MediaTime(value: 1, timescale: 10)
    }

    /// The script's time, if a script is keeping time and it is not already
    /// past (a line typed long after a `wait` plays at once and drops the timeline).
    func scriptedTime() -> MediaTime? {
        guard let time = scriptTime else { return nil }
        if time + scheduleAhead < engine.currentTime {
            scriptTime = nil
            return nil
        }
        return time
    }

    // MARK: Events and status

    private func handle(_ event: PlaybackEvent) {
        switch event {
        case let .voiceStarted(_, sound, time, _):
            guard let pad = padBySoundName[sound] else { return }
            updateStatus {
                $0.lastHit[pad] = time
                $0.padsHeard += 1
            }
        case let .voiceRefused(_, sound, reason):
            report("\(sound): not played (\(reason))")
        case let .outputLost(device, replacement, reason):
            report(
                "output: \(device) lost (\(reason)); "
                    + (replacement.map { "now playing on \($0)" } ?? "no device left, rendering silently"))
        case let .outputChanged(device, _, reason):
            report("output: now playing on \(device) (\(reason))")
        default:
            break
        }
    }

    /// Prints a line and keeps it for the screen.
    func report(_ line: String) {
        updateStatus { $0.append(message: line) }
        say(line)
    }

    /// The screen's view of the demo, as of now.
    public var status: DrumpadStatus { statusBox.withLockedValue { $0 } }

    /// Calls `observer` with the status after every change.
    public func onStatusChange(_ observer: @escaping @Sendable (DrumpadStatus) -> Void) {
        statusObservers.withLockedValue { $0.append(observer) }
    }

    func updateStatus(_ change: (inout DrumpadStatus) -> Void) {
        let status = statusBox.withLockedValue { status -> DrumpadStatus in
            change(&status)
            return status
        }
        for observer in statusObservers.withLockedValue({ $0 }) { observer(status) }
    }

    /// Reads the music (state, item, level), the session and the clock into the status.
    public func refreshStatus() {
        let state = music.flatMap { try? $0.playbackState() }
        let item = music.flatMap { (try? $0.nowPlayingItem()) ?? nil }
        let level = music?.level() ?? nil
        let session = engine.session
        var category = "\(session.category)"
        if session.options.contains(.mixWithOthers) { category += " mix" }
        if session.options.contains(.duckOthers) { category += " duck" }
        let route = session.currentRoute.name
        let time = engine.isRunning ? engine.currentTime : statusBox.withLockedValue { $0.time }
        updateStatus {
            $0.time = time
            $0.playbackState = state
            $0.nowPlaying = item.map {
                DrumpadStatus.NowPlaying(
                    title: $0.title, album: $0.albumTitle ?? "Unknown Album", artist: $0.artist ?? "Unknown Artist",
                    artwork: $0.artwork.map { "\($0.bounds) artwork" } ?? "no artwork")
            }
            $0.level = level
            $0.session = category
            $0.route = route
        }
    }
}

/// Why the demo cannot start: one line.
public struct DrumpadError: Error, Sendable, CustomStringConvertible {
    /// One line.
    public let description: String
    init(_ description: String) { self.description = description }
}
