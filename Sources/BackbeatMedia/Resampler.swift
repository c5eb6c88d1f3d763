import CSamplerate
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import BackbeatSupport

/// Sample-rate conversion of interleaved Float32 through libsamplerate.
package final class Resampler {
    let channelCount: Int
    package let ratio: Double
    private var state: OpaquePointer?
    private var output: [Float] = []

    package init(
        from sourceRate: Int, to targetRate: Int, channelCount: Int, quality: Int32 = Int32(SRC_SINC_FASTEST)
    ) throws {
        self.channelCount = channelCount
        self.ratio = Double(targetRate) / Double(sourceRate)
        guard src_is_valid_ratio(ratio) != 0 else {
            throw BackbeatError(
                .unsupportedFormat, operation: "src_new", reason: "cannot resample \(sourceRate) Hz to \(targetRate) Hz"
            )
        }
        var error: Int32 = 0
        guard let state = src_new(quality, Int32(channelCount), &error) else {
            throw BackbeatError(.unsupportedFormat, operation: "src_new", reason: String(cString: src_strerror(error)))
        }
        self.state = state
    }

    deinit { if let state { src_delete(state) } }

    /// Resamples `frames` frames at `input`; with `endOfInput`, also flushes
    /// what libsamplerate holds back. Returns the output frames, interleaved.
    package func process(_ input: UnsafePointer<Float>, frames: Int, endOfInput: Bool) throws -> [Float] {
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
