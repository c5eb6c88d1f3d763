import Backbeat
import BackbeatEngine
import BackbeatTelemetry
import BackbeatTesting
import Foundation
import Testing

@testable import BackbeatEffects

#if canImport(Glibc)
import Glibc
#endif

/// What the voice pool shows a monitor (voices, states, counts, bus levels)
/// and what it takes from one (snapshots by name, stopping a voice), on
/// offline engines.
@Suite("Voice pool telemetry")
struct VoicePoolTelemetryTests {
    /// A snapshot built by the effects' contributor alone, over the last `window` frames.
    static func snapshot(_ engine: AudioEngine, window: Int64 = 4_800) -> TelemetrySnapshotBuilder {
        engine.withLock {
            let frame = engine.currentFrameLocked
            let builder = TelemetrySnapshotBuilder(
                snapshot: TelemetrySnapshot(
                    time: Double(frame) / Double(engine.sampleRate),
                    engine: .init(
                        sourcesInUse: 0, sourcesTotal: 0, underruns: 0, updateCPUPercent: 0, output: "offline",
                        sampleRate: engine.sampleRate)),
                frame: frame, window: window)
            engine.effectsLocked.telemetry.contributeLocked(to: builder)
            return builder
        }
    }

    static func apply(_ engine: AudioEngine, _ setting: TelemetrySetting) -> Result<Void, TelemetryCommandError>? {
        let result = engine.withLock { engine.effectsLocked.telemetry.applyTelemetryLocked(setting) }
        engine.deliverPendingEvents()
        return result
    }

    static func tone(_ frequency: Double, _ engine: AudioEngine, name: String? = nil) throws -> SoundEffect {
        try SoundEffect(
            buffer: TestSignal.sine(frequency: frequency, duration: MediaTime(seconds: 1)),
            name: name ?? "tone\(Int(frequency)).wav", engine: engine)
    }

    static func entry(_ builder: TelemetrySnapshotBuilder, _ voice: Voice) -> TelemetrySnapshot.Voice? {
        builder.snapshot.voices.first { $0.id == voice.id.raw }
    }

    @Test("A voice out of earshot reads dormant; a loop past the voice limit reads virtual; a 2D voice reads playing")
    func states() throws {
        try withOfflineEngine(maximumVoices: 2) { engine in
            let sound = try Self.tone(440, engine)
            let far = Audio3DPoint(x: 0, y: 0, z: -100_000)
            let asleep = sound.play(at: nil, position: far, looping: .forever)
            let awakeFar = sound.play(at: nil, position: far, looping: .times(1000))
            let a = sound.play(volume: 0.9, looping: .forever)
            let b = sound.play(volume: 0.8, looping: .forever)
            let c = sound.play(volume: 0.1, looping: .forever)
            _ = try engine.render(frames: 4_800)
            let built = Self.snapshot(engine)
            #expect(engine.withLock { asleep.record.isDormant })
            #expect(Self.entry(built, asleep)?.state == .dormant)
            #expect(Self.entry(built, asleep)?.reason == "outOfEarshot")
            #expect(Self.entry(built, awakeFar)?.state == .dormant, "out of earshot, not asleep (it ends)")
            #expect(Self.entry(built, a)?.state == .playing && Self.entry(built, a)?.reason == nil)
            #expect(Self.entry(built, b)?.state == .playing)
            #expect(Self.entry(built, c)?.state == .virtual && Self.entry(built, c)?.reason == "voiceLimit")
            #expect(Self.entry(built, c)?.name == "tone440.wav" && Self.entry(built, c)?.bus == "effects")
            #expect(Self.entry(built, c)?.position == nil)
            #expect(Self.entry(built, asleep)?.position == [0, 0, -100_000])
            #expect(abs((Self.entry(built, b)?.gainDB ?? 0) - 20 * log10(0.8)) < 0.01)
            #expect(Self.entry(built, asleep)?.gainDB ?? 0 < -60)
            let counts = built.snapshot.voiceCounts
            #expect(counts == .init(playing: 2, virtual: 1, dormant: 2, stopping: 0, unlisted: 0))
            #expect(built.snapshot.engine.sourcesInUse == 2)
            // The loudest first.
            #expect(built.snapshot.voices.map(\.id).prefix(3) == [a.id.raw, b.id.raw, c.id.raw])
            a.stop()
            let stopping = Self.snapshot(engine)
            #expect(Self.entry(stopping, a)?.state == .stopping)
        }
    }

    /// A voice keeps its last listed gain's dB for the next snapshot: one
    /// whose gain changed must read the new level, one that held still the same.
    @Test("A voice's level follows its volume from one snapshot to the next")
    func levelFollowsVolume() throws {
        try withOfflineEngine { engine in
            let sound = try Self.tone(440, engine)
            let voice = sound.play(volume: 0.8, looping: .forever)
            _ = try engine.render(frames: 4_800)
            #expect(abs((Self.entry(Self.snapshot(engine), voice)?.gainDB ?? 0) - 20 * log10(0.8)) < 0.01)
            #expect(abs((Self.entry(Self.snapshot(engine), voice)?.gainDB ?? 0) - 20 * log10(0.8)) < 0.01)
            voice.volume = 0.2
            _ = try engine.render(frames: 4_800)
            #expect(abs((Self.entry(Self.snapshot(engine), voice)?.gainDB ?? 0) - 20 * log10(0.2)) < 0.01)
            voice.volume = 0
            _ = try engine.render(frames: 4_800)
            #expect(Self.entry(Self.snapshot(engine), voice)?.gainDB == -120)
        }
    }

    @Test("A sound event's voices go by the event's name")
    func eventName() throws {
        try withOfflineEngine { engine in
            let event = try SoundEvent(name: "footstep", sounds: [Self.tone(440, engine)], mode: .sequence)
            let voices = event.play()
            let built = Self.snapshot(engine)
            #expect(built.snapshot.voices.map(\.name) == ["footstep"])
            #expect(built.snapshot.voices.map(\.id) == voices.map(\.id.raw))
        }
    }

    @Test("10,000 emitters: the 256 loudest are listed, loudest first, and the counts add up to all of them")
    func tenThousand() throws {
        try withOfflineEngine { engine in
            let sound = try Self.tone(440, engine)
            var random = SystemRandomNumberGenerator()
            var distances: [Float] = (0..<10_000).map { 1 + Float($0) * 0.37 }
            distances.shuffle(using: &random)
            var voices: [(voice: Voice, distance: Float)] = []
            for d in distances {
                voices.append((sound.play(at: nil, position: Audio3DPoint(x: d, y: 0, z: 0), looping: .forever), d))
            }
            _ = try engine.render(frames: 4_800)
            let built = Self.snapshot(engine)
            let listed = built.snapshot.voices
            #expect(listed.count == 256)
            #expect(zip(listed, listed.dropFirst()).allSatisfy { $0.gainDB >= $1.gainDB }, "loudest first")
            let nearest = Set(voices.sorted { $0.distance < $1.distance }.prefix(256).map { $0.voice.id.raw })
            #expect(Set(listed.map(\.id)) == nearest, "the nearest 256 are the loudest")
            let c = built.snapshot.voiceCounts
            #expect(c.playing + c.virtual + c.dormant + c.stopping == 10_000)
            #expect(c.unlisted == 10_000 - 256)
            #expect(c.dormant > 5_000, "most are far out of earshot: \(c)")
            #expect(c.playing == engine.audibleVoiceCapacity || c.playing <= 256)
        }
    }

    @Test("The selection's own sort puts different keys in order, for any count")
    func sortInPlace() {
        var random = SystemRandomNumberGenerator()
        for n in [0, 1, 2, 15, 16, 17, 64, 256, 1_000] {
            var keys = Array(Set((0..<n * 3).map { _ in UInt64.random(in: 0..<UInt64(n * 10 + 1), using: &random) }))
            keys.shuffle(using: &random)
            let expected = keys.sorted()
            keys.withUnsafeMutableBufferPointer { TelemetrySelection.sortInPlace($0) }
            #expect(keys == expected, "\(keys.count) keys")
        }
        // Already in order, and backwards: the pivots' worst cases for a plain quicksort.
        var ordered = (0..<1_000).map { UInt64($0) }
        ordered.withUnsafeMutableBufferPointer { TelemetrySelection.sortInPlace($0) }
        #expect(ordered == (0..<1_000).map { UInt64($0) })
        var backwards = (0..<1_000).reversed().map { UInt64($0) }
        backwards.withUnsafeMutableBufferPointer { TelemetrySelection.sortInPlace($0) }
        #expect(backwards == (0..<1_000).map { UInt64($0) })
    }

    @Test("After the listener moves away from every voice, the next snapshot still lists the 256 loudest")
    func floorFromTheLastSnapshot() throws {
        try withOfflineEngine { engine in
            let sound = try Self.tone(440, engine)
            var random = SystemRandomNumberGenerator()
            var distances: [Float] = (0..<2_000).map { 1 + Float($0) * 0.37 }
            distances.shuffle(using: &random)
            var voices: [(voice: Voice, distance: Float)] = []
            for d in distances {
                voices.append((sound.play(at: nil, position: Audio3DPoint(x: d, y: 0, z: 0), looping: .forever), d))
            }
            _ = try engine.render(frames: 4_800)
            let nearest = Set(voices.sorted { $0.distance < $1.distance }.prefix(256).map { $0.voice.id.raw })
            #expect(Set(Self.snapshot(engine).snapshot.voices.map(\.id)) == nearest)
            // 5 km down the line: every voice far under the floor the last
            // snapshot left (6 dB under its quietest), in the same order.
            engine.listenerPosition = Audio3DPoint(x: -5_000, y: 0, z: 0)
            _ = try engine.render(frames: 4_800)
            let far = Self.snapshot(engine).snapshot
            #expect(far.voices.count == 256)
            #expect(Set(far.voices.map(\.id)) == nearest, "still the nearest, 5 km off")
            #expect(zip(far.voices, far.voices.dropFirst()).allSatisfy { $0.gainDB >= $1.gainDB }, "loudest first")
            #expect(far.voiceCounts.unlisted == 2_000 - 256)
            // And back: the floor left by the far snapshot is near silence.
            engine.listenerPosition = Audio3DPoint(x: 0, y: 0, z: 0)
            _ = try engine.render(frames: 4_800)
            #expect(Set(Self.snapshot(engine).snapshot.voices.map(\.id)) == nearest)
        }
    }

    @Test("The selection keeps the loudest rows, ties by row, for any count")
    func selection() {
        var random = SystemRandomNumberGenerator()
        for n in [0, 1, 5, 256, 257, 1_000, 10_000] {
            var rows = (0..<n).map {
                VoicePool.TelemetryRow(gain: Float(Int.random(in: 0..<50, using: &random)), row: Int32($0))
            }
            rows.shuffle(using: &random)
            let expected = rows.sorted(by: VoicePool.louder).prefix(256)
            let k = VoicePool.selectLoudest(&rows, count: 256)
            #expect(k == min(n, 256))
            #expect(rows.prefix(k).map(\.row) == expected.map(\.row))
        }
    }

    @Test("The bounded selection keeps the loudest offered, whatever the order, and sorts them after a change")
    func boundedSelection() {
        var random = SystemRandomNumberGenerator()
        for (n, capacity) in [(0, 4), (3, 0), (3, 8), (300, 256), (2_000, 256), (5_000, 1)] {
            // Few distinct gains, so that most of the order is the ties' (by row).
            var rows = (0..<n).map {
                VoicePool.TelemetryRow(gain: Float(Int.random(in: 0..<20, using: &random)), row: Int32($0))
            }
            rows.shuffle(using: &random)
            var selection = TelemetrySelection()
            // Storage kept from a larger selection before must not leak into this one.
            selection.reset(capacity: 3)
            for row in rows.prefix(3) { selection.offer(VoicePool.TelemetryRow(gain: 1_000, row: row.row)) }
            selection.reset(capacity: capacity)
            for row in rows { selection.offer(row) }
            selection.sortLoudestFirst()
            let expected = rows.sorted(by: VoicePool.louder).prefix(capacity)
            #expect(selection.count == min(n, capacity))
            let kept = (0..<selection.count).map { selection[$0] }
            #expect(Set(kept.map(\.row)) == Set(expected.map(\.row)), "\(n) rows, \(capacity) kept")
            #expect(kept.map(\.gain) == expected.map(\.gain), "keys give the gains back")
            // A change of gains (a dormant voice's exact one) is sorted in.
            selection.sortLoudestFirst { $0.row % 3 == 0 ? -$0.gain - 1 : nil }
            let changed = expected.map { row in
                VoicePool.TelemetryRow(gain: row.row % 3 == 0 ? -row.gain - 1 : row.gain, row: row.row)
            }
            let sorted = (0..<selection.count).map { selection[$0].row }
            #expect(sorted == changed.sorted(by: VoicePool.louder).map(\.row))
        }
    }

    @Test(
        "A window's level walks intro, loop region and tail as the voice plays them, across wraps",
        arguments: [-1, 0, 2])
    func windowAcrossParts(loops: Int) throws {
        try withOfflineEngine { engine in
            // Each block at its own level, so a misplaced block shows.
            let frames = 48_000
            let samples = (0..<frames).map { Float($0 / LevelEnvelope.blockFrames % 97 + 1) / 100 }
            let sound = try SoundEffect(
                buffer: try PCMBuffer(format: AudioFormat(sampleRate: 48_000, channelCount: 1), floats: samples),
                name: "ramp", loopPoints: try LoopPoints(start: 10_000, end: 17_000), engine: engine)
            let resident = try #require(
                engine.withLock { () -> SoundEffect.Resident? in
                    if case .loaded(let r) = sound.loadState { return r }
                    return nil
                })
            for played in stride(from: 0.0, to: 90_000, by: 3_737) {
                for span in [500.0, 4_800, 48_000] {
                    let level = VoicePool.windowLevel(
                        resident.envelope, resident: resident, loops: loops, played: played, span: span)
                    // By hand: the same sample points, each placed on its own.
                    let active = min(span, played)
                    guard active >= 1 else {
                        #expect(level.meanSquare == 0)
                        continue
                    }
                    let block = LevelEnvelope.blockFrames
                    let count = min(VoicePool.levelSamples, max(1, Int((active / Double(block)).rounded(.up))))
                    var sum = 0.0
                    for i in 0..<count {
                        let t = played - active + (Double(i) + 0.5) * active / Double(count)
                        let frame = VoicePool.soundFrame(played: Int(t), resident: resident, loops: loops)
                        sum += Double(resident.envelope.meanSquares[frame / block])
                    }
                    let expected = sum / Double(count) * active / span
                    #expect(
                        abs(level.meanSquare - expected) <= expected * 0.02,
                        "played \(played), span \(span): \(level.meanSquare) against \(expected)")
                }
            }
        }
    }

    /// The scene's output and per-bus levels: `effectsVoices` on the effects
    /// bus, `childVoices` on a child bus at half volume, over the last 4,800 frames.
    static func scene(effectsVoices: Bool, childVoices: Bool) throws -> (
        out: [Float], levels: [String: Double], buses: [String: TelemetrySnapshot.Bus]
    ) {
        try withOfflineEngine { engine in
            let child = engine.makeBus(named: "ui", parent: engine.effectsBus)
            child.volume = 0.5
            if effectsVoices {
                try Self.tone(440, engine).play(volume: 0.6, looping: .forever)
                try Self.tone(620, engine).play(volume: 0.4, pan: -0.4, looping: .forever)
            }
            if childVoices {
                try Self.tone(300, engine).play(volume: 0.9, pan: 0.7, looping: .forever, bus: child)
                let left = TestSignal.sine(frequency: 530, duration: MediaTime(seconds: 1)).interleavedFloats
                let right = TestSignal.sine(frequency: 810, duration: MediaTime(seconds: 1)).interleavedFloats
                let stereo = try PCMBuffer(
                    format: AudioFormat(sampleRate: 48_000, channelCount: 2),
                    floats: zip(left, right).flatMap { [$0, $1 * 0.5] })
                try SoundEffect(buffer: stereo, name: "stereo", engine: engine).play(
                    volume: 0.7, looping: .forever, bus: child)
            }
            _ = try engine.render(frames: 19_200)
            // The engine's snapshot covers the frames since its last one.
            _ = engine.withLock { engine.telemetrySnapshotLocked() }
            let out = try engine.render(frames: 4_800)
            let built = Self.snapshot(engine, window: 4_800)
            var levels: [String: Double] = [:]
            for bus in [engine.effectsBus, child] {
                levels[bus.name] = built.level(of: ObjectIdentifier(bus))?.meanSquare ?? 0
            }
            let snapshot = engine.withLock { engine.telemetrySnapshotLocked() }
            return (out, levels, Dictionary(uniqueKeysWithValues: snapshot.buses.map { ($0.name, $0) }))
        }
    }

    static func decibels(_ meanSquare: Double) -> Double { 10 * log10(max(meanSquare, 1e-12)) }

    @Test("Bus levels from voice samples match the rendered output's RMS over the same window within 0.5 dB (2D)")
    func levelsMatchTheRender() throws {
        for (effects, child) in [(true, false), (false, true), (true, true)] {
            let (out, levels, buses) = try Self.scene(effectsVoices: effects, childVoices: child)
            let rendered = Self.decibels(Double(SampleAnalysis.rms(out)) * Double(SampleAnalysis.rms(out)))
            let read = Self.decibels((levels["effects"] ?? 0) + (levels["ui"] ?? 0))
            #expect(
                abs(read - rendered) < 0.5,
                "effects \(effects), child \(child): read \(read) dB, rendered \(rendered) dB")
            #expect(((levels["effects"] ?? 0) > 0) == effects)
            #expect(((levels["ui"] ?? 0) > 0) == child)
            // The engine's snapshot folds each bus into its parents: every bus above the voices reads the render.
            for name in ["master", "effects"] + (effects ? [] : ["ui"]) {
                let rms = try #require(buses[name]?.rmsDB)
                #expect(abs(rms - rendered) < 0.5, "\(name) reads \(rms) dB, rendered \(rendered) dB")
            }
        }
    }

    @Test("A mix snapshot turned on and off by name is heard; an unknown name is refused, naming the known ones")
    func snapshotsByName() throws {
        try withOfflineEngine { engine in
            try Self.tone(440, engine).play(looping: .forever)
            var quiet = MixSnapshot(name: "quiet")
            quiet.buses["effects"] = .init(volume: 0.1)
            let active = try engine.activate(quiet)
            try active.release()
            _ = try engine.render(frames: 9_600)
            let loud = SampleAnalysis.rms(try engine.render(frames: 4_800))
            #expect(Self.snapshot(engine).snapshot.snapshots == [.init(name: "quiet", active: false)])

            #expect(try Self.apply(engine, .snapshot(name: "quiet", active: true))?.get() != nil)
            _ = try engine.render(frames: 9_600)
            let lowered = SampleAnalysis.rms(try engine.render(frames: 4_800))
            #expect(abs(20 * log10(Double(lowered / loud)) + 20) < 0.5, "the snapshot's 0.1 is heard")
            #expect(Self.snapshot(engine).snapshot.snapshots == [.init(name: "quiet", active: true)])

            #expect(try Self.apply(engine, .snapshot(name: "quiet", active: false))?.get() != nil)
            _ = try engine.render(frames: 9_600)
            let back = SampleAnalysis.rms(try engine.render(frames: 4_800))
            #expect(abs(20 * log10(Double(back / loud))) < 0.1)
            #expect(Self.snapshot(engine).snapshot.snapshots == [.init(name: "quiet", active: false)])

            guard case .failure(let error) = Self.apply(engine, .snapshot(name: "loud", active: true)) else {
                Issue.record("an unknown snapshot was accepted")
                return
            }
            #expect(error.message.contains("\"loud\"") && error.message.contains("\"quiet\""))
            // Not the pool's: the engine asks the next part.
            #expect(Self.apply(engine, .busMute(bus: "effects", muted: true)) == nil)
        }
    }

    @Test("voice.ID.stop stops that voice with a short fade; an unknown id is refused")
    func stopVoice() throws {
        try withOfflineEngine { engine in
            let a = try Self.tone(440, engine).play(looping: .forever)
            let b = try Self.tone(620, engine).play(looping: .forever)
            _ = try engine.render(frames: 4_800)
            #expect(try Self.apply(engine, .stopVoice(id: a.id.raw))?.get() != nil)
            _ = try engine.render(frames: 4_800)
            #expect(a.isFinished && !b.isFinished)
            let out = SampleAnalysis.channel(try engine.render(frames: 4_800), 0, of: 2)
            let alone = try withOfflineEngine { reference in
                try Self.tone(620, reference).play(looping: .forever)
                _ = try reference.render(frames: 9_600)
                return SampleAnalysis.channel(try reference.render(frames: 4_800), 0, of: 2)
            }
            #expect(abs(20 * log10(Double(SampleAnalysis.rms(out) / SampleAnalysis.rms(alone)))) < 0.1)
            guard case .failure(let error) = Self.apply(engine, .stopVoice(id: a.id.raw)) else {
                Issue.record("a finished voice was stopped again")
                return
            }
            #expect(error.message.contains("\(a.id.raw)"))
        }
    }

    @Test("A steal is an event line, and so are the start and the refusal, with the voices' ids and names")
    func stealEvent() throws {
        var template = Array("/tmp/backbeat-voices-XXXXXX".utf8CString)
        let root = String(cString: try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }))
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/backbeat/1.sock"
        let server = try TelemetryServer(
            path: path, hello: TelemetryHello(pid: 1, process: "tests", output: "offline", sampleRate: 48_000),
            handler: { _ in .ok(id: nil) })
        defer { server.close() }
        try withOfflineEngine(maximumVoices: 1) { engine in
            let sound = try Self.tone(440, engine, name: "hit.wav")
            engine.withLock { engine.telemetryServer = server }
            defer { engine.withLock { engine.telemetryServer = nil } }
            let client = try TelemetryClient(path: path)
            defer { client.close() }
            // Its reply says the server has taken the client on: events from here on reach it.
            try client.send(TelemetryCommand(id: 1, action: .rate(10)))
            var replied = false
            while !replied, let line = try client.nextLine(timeout: 10) {
                if case .reply(let reply) = line, reply.id == 1 { replied = true }
            }
            #expect(replied)
            let quiet = sound.play(volume: 0.2)
            let loud = sound.play(volume: 0.9, priority: 1)
            let refused = sound.play(volume: 0.1)
            var events: [TelemetryEvent] = []
            while !events.contains(where: { $0.event == .voiceRefused }), let line = try client.nextLine(timeout: 10) {
                if case .event(let event) = line { events.append(event) }
            }
            let stolen = try #require(events.first { $0.event == .voiceStolen })
            #expect(stolen.voice == quiet.id.raw && stolen.name == "hit.wav")
            #expect(stolen.message?.contains("\(loud.id.raw)") == true)
            #expect(events.contains { $0.event == .voiceStarted && $0.voice == loud.id.raw })
            #expect(events.contains { $0.event == .voiceRefused && $0.voice == refused.id.raw })
        }
    }
}
