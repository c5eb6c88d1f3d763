import BackbeatSupport
import CSamplerate

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sample-rate conversion of interleaved Float32.
///
/// A rate pair whose reduced ratio has at most 1,024 phases (every common
/// one: 44.1 ↔ 48 kHz, 22.05, 32, 96 kHz...) goes through Backbeat's own
/// polyphase filter (``PolyphaseFilter``): flat within 1e-4 to 0.375 of the
/// lower rate, images and aliases under −90 dB, at a fifth of libsamplerate's
/// cost. Any other pair goes through libsamplerate's fastest sinc. Either way
/// the output starts aligned with the input (no filter delay) and ends at the
/// last input frame's time.
package final class Resampler {
    let channelCount: Int
    package let ratio: Double
    private var polyphase: PolyphaseState?
    private var state: OpaquePointer?
    private var output: [Float] = []

    /// Which filter converts.
    package enum Method: Sendable {
        /// The polyphase filter when the ratio allows, else libsamplerate.
        case automatic
        /// libsamplerate's fastest sinc, whatever the ratio.
        case libsamplerate
    }

    /// Whether this resampler runs Backbeat's polyphase filter (not libsamplerate).
    package var isPolyphase: Bool { polyphase != nil }

    package init(from sourceRate: Int, to targetRate: Int, channelCount: Int, method: Method = .automatic) throws {
        self.channelCount = channelCount
        self.ratio = Double(targetRate) / Double(sourceRate)
        guard src_is_valid_ratio(ratio) != 0 else {
            throw BackbeatError(
                .unsupportedFormat, operation: "src_new", reason: "cannot resample \(sourceRate) Hz to \(targetRate) Hz"
            )
        }
        if method == .automatic, let bank = PolyphaseFilter.bank(from: sourceRate, to: targetRate) {
            polyphase = PolyphaseState(bank: bank, channelCount: channelCount)
            return
        }
        var error: Int32 = 0
        guard let state = src_new(Int32(SRC_SINC_FASTEST), Int32(channelCount), &error) else {
            throw BackbeatError(.unsupportedFormat, operation: "src_new", reason: String(cString: src_strerror(error)))
        }
        self.state = state
    }

    deinit { if let state { src_delete(state) } }

    /// Resamples `frames` frames at `input`; with `endOfInput`, also flushes
    /// what libsamplerate holds back. Returns the output frames, interleaved.
    package func process(_ input: UnsafePointer<Float>, frames: Int, endOfInput: Bool) throws -> [Float] {
        if polyphase != nil {
            var result: [Float] = []
            result.reserveCapacity(Int(Double(frames) * ratio + 2) * channelCount)
            polyphase!.process(input, frames: frames, endOfInput: endOfInput, into: &result)
            return result
        }
        guard let state else { return [] }
        var result: [Float] = []
        result.reserveCapacity(Int(Double(frames) * ratio + 64) * channelCount)
        var offset = 0
        let chunk = Int(Double(max(frames, 256)) * ratio) + 256
        if output.count < chunk * channelCount { output = [Float](repeating: 0, count: chunk * channelCount) }
        while true {
            var data = SRC_DATA()
            let generated: Int = try output.withUnsafeMutableBufferPointer { out in
                data.data_in = input + offset * channelCount
                data.input_frames = Int(frames - offset)
                data.data_out = out.baseAddress
                data.output_frames = Int(chunk)
                data.src_ratio = ratio
                data.end_of_input = endOfInput ? 1 : 0
                let status = src_process(state, &data)
                guard status == 0 else {
                    throw BackbeatError(
                        .unsupportedFormat, operation: "src_process", reason: String(cString: src_strerror(status)))
                }
                return Int(data.output_frames_gen)
            }
            offset += Int(data.input_frames_used)
            result.append(contentsOf: output[0..<generated * channelCount])
            let consumedAll = offset >= frames
            if consumedAll && (!endOfInput || generated == 0) { break }
            if !consumedAll && generated == 0 && data.input_frames_used == 0 { break }
        }
        return result
    }
}
