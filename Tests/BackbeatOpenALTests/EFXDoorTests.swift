import COpenAL
import Foundation
import Testing

@testable import BackbeatOpenAL

/// The EFX door on a real loopback device: presets, slots, sends, filters.
@Suite("EFX door")
struct EFXDoorTests {
    /// Renders `frames` of a mono source playing `samples` once, set up by `configure`.
    private func render(
        _ samples: [Float], frames: Int, configure: (ALDevice, ALSource) throws -> Void
    ) throws -> [Float] {
        let device = try ALDevice.openLoopback(sampleRate: 48_000, channels: 2)
        defer { device.close() }
        let buffer = try device.generateBuffer(interleaved: samples, channels: 1, sampleRate: 48_000)
        let source = ALSource(name: try device.generateSource())
        var out = [Float](repeating: 0, count: frames * 2)
        try device.withContext {
            source.reset()
            source.attach(buffer)
            try configure(device, source)
            source.play()
        }
        device.render(frames: frames, into: &out, at: 0)
        return out
    }

    private func burst(frames: Int) -> [Float] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<frames).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: state >> 11) % 1_000_000) / 2_000_000
        }
    }

    private func rms(_ s: ArraySlice<Float>) -> Float {
        s.isEmpty ? 0 : (s.reduce(0) { $0 + $1 * $1 } / Float(s.count)).squareRoot()
    }

    @Test("All 113 presets of efx-presets.h are in the table, by lowercase name without the prefix")
    func presetTable() {
        let presets = ALReverbProperties.presets
        #expect(presets.count == 113)
        #expect(Set(presets.map(\.name)).count == 113)
        #expect(presets.first?.name == "generic")
        let hangar = ALReverbProperties.preset(named: "hangar")
        #expect(hangar?.decayTime == 10.05)
        #expect(ALReverbProperties.preset(named: "cave")?.decayTime == 2.91)
        #expect(ALReverbProperties.preset(named: "bathroom")?.decayTime == 1.49)
        #expect(ALReverbProperties.preset(named: "castle_smallroom") != nil)
        #expect(ALReverbProperties.preset(named: "HANGAR") == nil)
        #expect(ALReverbProperties.preset(named: "EFX_REVERB_PRESET_HANGAR") == nil)
        for (name, p) in presets { #expect(p == p.clamped, "\(name) is within EFX's ranges") }
    }

    @Test("The context grants more than one auxiliary send per source and has EFX")
    func sends() throws {
        let device = try ALDevice.openLoopback(sampleRate: 48_000, channels: 2)
        defer { device.close() }
        #expect(device.hasEFX)
        #expect(device.auxiliarySendCount >= 2)
    }

    @Test("A source sending to a reverb slot leaves a tail after its burst; without the send there is none")
    func reverbTail() throws {
        let noise = burst(frames: 2_400)
        let wet = try render(noise, frames: 48_000) { device, source in
            let slot = try device.generateEffectSlot()
            try device.loadReverb(ALReverbProperties.preset(named: "hangar")!, into: slot)
            device.setSend(0, of: source, to: slot, filter: .none)
        }
        let dry = try render(noise, frames: 48_000) { _, _ in }
        let tailStart = 2 * 9_600
        let tailEnd = 2 * 19_200
        #expect(rms(dry[tailStart..<tailEnd]) < 1e-6)
        #expect(rms(wet[tailStart..<tailEnd]) > 1e-3)
    }

    @Test("Out-of-range and NaN reverb values are clamped into EFX's ranges")
    func clamping() {
        var p = ALReverbProperties()
        p.decayTime = 1_000
        p.density = .nan
        p.reflectionsPan = (3, 4, 0)
        let c = p.clamped
        #expect(c.decayTime == AL_EAXREVERB_MAX_DECAY_TIME)
        #expect(c.density == AL_EAXREVERB_MIN_DENSITY)
        #expect(abs(c.reflectionsPan.x - 0.6) < 1e-6 && abs(c.reflectionsPan.y - 0.8) < 1e-6)
    }

    @Test("A low-pass on the direct path lowers a high tone and leaves a low one")
    func directLowPass() throws {
        func tone(_ f: Double) -> [Float] {
            (0..<48_000).map { Float(0.5 * sin(2 * Double.pi * f * Double($0) / 48_000)) }
        }
        for (frequency, expectLoss) in [(200.0, false), (12_000.0, true)] {
            let open = try render(tone(frequency), frames: 24_000) { _, _ in }
            let shut = try render(tone(frequency), frames: 24_000) { device, source in
                device.setDirectFilter(.lowPass(gain: 1, gainHF: 0.1), on: source)
            }
            let ratio = rms(shut[4_800..<48_000]) / rms(open[4_800..<48_000])
            if expectLoss { #expect(ratio < 0.2) } else { #expect(ratio > 0.9) }
        }
    }
}
