import BackbeatMedia
import BackbeatSupport
import CEbur128
import Foundation

/// The door to libebur128: EBU R128 integrated loudness and true peak of a PCM stream.
final class LoudnessMeter {
    private var state: UnsafeMutablePointer<ebur128_state>?
    let channelCount: Int

    init(format: AudioFormat, url: URL) throws {
        channelCount = format.channelCount
        let mode = Int32(EBUR128_MODE_I.rawValue | EBUR128_MODE_TRUE_PEAK.rawValue)
        guard let state = ebur128_init(UInt32(format.channelCount), UInt(format.sampleRate), mode) else {
            throw BackbeatError(
                .unsupportedFormat, operation: "ebur128_init", url: url,
                reason: "cannot measure \(format.channelCount) channels at \(format.sampleRate) Hz")
        }
        self.state = state
    }

    deinit { ebur128_destroy(&state) }

    func add(_ interleaved: [Float]) {
        interleaved.withUnsafeBufferPointer {
            _ = ebur128_add_frames_float(state, $0.baseAddress, $0.count / channelCount)
        }
    }

    /// Integrated loudness (LUFS; -inf for silence) and true peak (dBTP).
    func result() -> Loudness {
        var lufs = -Double.infinity
        if ebur128_loudness_global(state, &lufs) != EBUR128_SUCCESS.rawValue { lufs = -.infinity }
        var peak = 0.0
        for channel in 0..<channelCount {
            var p = 0.0
            if ebur128_true_peak(state, UInt32(channel), &p) == EBUR128_SUCCESS.rawValue { peak = max(peak, p) }
        }
        return Loudness(integratedLUFS: lufs, truePeakDBTP: peak > 0 ? 20 * log10(peak) : -.infinity)
    }
}
