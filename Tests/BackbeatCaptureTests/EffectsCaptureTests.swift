import Backbeat
import BackbeatCapture
import BackbeatReplay
import BackbeatTesting
import Foundation
import Testing

@Suite("Effects capture: sounds, voices, events, listener, reverb and snapshots replayed sample for sample")
struct EffectsCaptureTests {
    @Test func aReplayOfTheSceneIsTheOriginalRenderBitForBit() throws {
        let scene = try EffectsCaptureScene()
        defer { scene.cleanUp() }
        let capture = scene.url("scene.bbcap")
        let original = try scene.render(capture: capture).samples
        let replayed = try scene.replay(capture)
        #expect(replayed.count == original.count)
        #expect(firstDifference(replayed, original) == nil)
        #expect(original.contains { abs($0) > 0.05 })

        let kinds = Set(try CaptureFileReader(url: capture).readAll().map(\.kind))
        for kind in [
            CaptureKind.effectsSoundDeclared, .effectsVoicePlay, .effectsVoiceChange, .effectsVoiceMoveBatch,
            .effectsEventDeclared, .effectsEventPlay, .effectsEventReseed, .effectsEventSetting, .effectsListener,
            .effectsListenerMove, .effectsReverb, .effectsReverbZones, .effectsSnapshotActivate,
            .effectsSnapshotRelease, .effectsSoundSetting,
        ] {
            #expect(kinds.contains(kind), "no record of kind \(kind)")
        }
    }

    @Test func capturingChangesNothingThatIsHeard() throws {
        let scene = try EffectsCaptureScene()
        defer { scene.cleanUp() }
        let with = try scene.render(capture: scene.url("on.bbcap")).samples
        let without = try scene.render().samples
        #expect(firstDifference(with, without) == nil)
    }

    /// Each kind left out of the capture changes the replay: every one of
    /// them carries something the replay needs.
    @Test(arguments: [
        CaptureKind.effectsListenerMove, .effectsVoiceMoveBatch, .effectsEventPlay, .effectsSnapshotActivate,
        .effectsVoiceChange, .effectsReverb,
    ])
    func aReplayWithoutOneKindOfRecordDiffers(_ dropped: CaptureKind) throws {
        let scene = try EffectsCaptureScene()
        defer { scene.cleanUp() }
        let capture = scene.url("full.bbcap")
        let original = try scene.render(capture: capture).samples
        let cut = scene.url("cut.bbcap")
        let writer = try CaptureFileWriter(url: cut)
        for record in try CaptureFileReader(url: capture).readAll() {
            // A release without its activation is damage, not a difference: drop both.
            if record.kind == dropped || (dropped == .effectsSnapshotActivate && record.kind == .effectsSnapshotRelease)
            {
                continue
            }
            writer.append(record.kind, frame: record.frame) { encoder in
                for byte in record.payload { encoder.appendFixed(byte) }
            }
        }
        try writer.close()
        let replayed = try scene.replay(cut)
        #expect(replayed.count == original.count)
        #expect(firstDifference(replayed, original) != nil)
    }

    @Test func aCaptureStartedMidSessionReplaysFromWhereItStarted() throws {
        let scene = try EffectsCaptureScene()
        defer { scene.cleanUp() }
        let capture = scene.url("mid.bbcap")
        let (original, start) = try scene.render(capture: capture, captureFrom: 3)
        #expect(start == 7_200)
        let records = try CaptureFileReader(url: capture).readAll()
        #expect(records.contains { $0.kind == .effectsState })
        let replayed = try scene.replay(capture)
        let tail = Array(original[(start * 2)...])
        #expect(replayed.count == tail.count)
        #expect(firstDifference(replayed, tail) == nil)
    }

    @Test func aMissingSoundFileIsOneLineNamingItAndItsPath() throws {
        let scene = try EffectsCaptureScene()
        defer { scene.cleanUp() }
        let capture = scene.url("missing.bbcap")
        _ = try scene.render(capture: capture)
        try FileManager.default.removeItem(at: scene.soundURL)
        let output = scene.url("missing.wav")
        let replayer = try Replayer(url: capture)
        do {
            _ = try replayer.run(writingTo: output)
            Issue.record("the replay of a capture whose sound is missing went through")
        } catch let error as BackbeatError {
            #expect(error.code == .fileNotFound)
            let line = "\(error)"
            #expect(!line.contains("\n"))
            #expect(line.contains("ping.wav"))
            #expect(line.contains(scene.soundURL.path))
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func aChangedSoundWarnsOnceAndReplaysItsNewContent() throws {
        let scene = try EffectsCaptureScene()
        defer { scene.cleanUp() }
        let capture = scene.url("changed.bbcap")
        let original = try scene.render(capture: capture).samples
        try scene.writeTone(880)
        let warnings = WarningBox()
        let replayed = try scene.replay(capture, warnings: warnings)
        #expect(warnings.lines.count == 1)
        #expect(warnings.lines.first?.contains(scene.soundURL.path) == true)
        #expect(firstDifference(replayed, original) != nil)
        // What the game would have heard with the new file.
        let renewed = try scene.render().samples
        #expect(firstDifference(replayed, renewed) == nil)
    }
}
