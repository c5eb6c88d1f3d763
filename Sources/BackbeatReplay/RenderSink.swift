import BackbeatEngine
import BackbeatMedia

/// Where a replay's samples go: renders the engine on to a frame, writing
/// only the frames inside `from`…`to` to the WAV.
struct RenderSink {
    let writer: SoundFileWriter?
    let channels: Int
    let rate: Int
    /// The first frame to write and the frame to stop at (engine frames of the captured session).
    let firstFrame: Int64
    let lastFrame: Int64?
    private(set) var renderedTo: Int64
    private(set) var framesWritten: Int64 = 0
    private var scratch: [Float] = []

    init(writer: SoundFileWriter?, channels: Int, rate: Int, start: Int64, options: Replayer.Options) {
        self.writer = writer
        self.channels = channels
        self.rate = rate
        renderedTo = start
        firstFrame = start + Int64(((options.from ?? 0) * Double(rate)).rounded())
        lastFrame = options.to.map { start + Int64(($0 * Double(rate)).rounded()) }
    }

    /// Whether `frame` is past `to`.
    func isPastEnd(_ frame: Int64) -> Bool { lastFrame.map { frame >= $0 } ?? false }

    /// Whether rendering reached `to`.
    var isDone: Bool { lastFrame.map { renderedTo >= $0 } ?? false }

    /// Renders from where it is to `frame` (capped at `to`), writing what lies inside `from`…`to`.
    mutating func render(engine: AudioEngine, to frame: Int64) throws {
        let target = min(frame, lastFrame ?? .max)
        while renderedTo < target {
            let chunk = Int(min(target - renderedTo, 8_192))
            if scratch.count < chunk * channels { scratch = [Float](repeating: 0, count: chunk * channels) }
            try engine.render(frames: chunk, into: &scratch)
            let start = max(renderedTo, firstFrame)
            let end = renderedTo + Int64(chunk)
            if let writer, start < end {
                let offset = Int(start - renderedTo) * channels
                try writer.write(scratch[offset..<(chunk * channels)])
                framesWritten += end - start
            } else if writer == nil, start < end {
                framesWritten += end - start
            }
            renderedTo = end
        }
    }
}
