/// Backbeat's channel mapping between interleaved layouts.
///
/// - Same count: unchanged.
/// - To mono: the average of all source channels.
/// - From mono: the mono signal in every output channel up to two (left and
///   right); further outputs are silent.
/// - Otherwise: shared channels pass through in order, extra source channels
///   are dropped, extra outputs are silent.
package enum ChannelMap {
    package static func apply(
        _ input: UnsafePointer<Float>, frames: Int, from source: Int, to target: Int,
        into output: UnsafeMutablePointer<Float>
    ) {
        if source == target {
            output.update(from: input, count: frames * source)
            return
        }
        if target == 1 {
            let scale = 1 / Float(source)
            for f in 0..<frames {
                var sum: Float = 0
                for c in 0..<source { sum += input[f * source + c] }
                output[f] = sum * scale
            }
            return
        }
        if source == 1 {
            for f in 0..<frames {
                let v = input[f]
                for c in 0..<target { output[f * target + c] = c < 2 ? v : 0 }
            }
            return
        }
        let shared = min(source, target)
        for f in 0..<frames {
            for c in 0..<target { output[f * target + c] = c < shared ? input[f * source + c] : 0 }
        }
    }
}
