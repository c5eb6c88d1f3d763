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
    /// The capture's first frame: the replay engine's frame 0.
    let origin: Int64
    private(set) var renderedTo: Int64
    private(set) var framesWritten: Int64 = 0
    private var scratch: [Float] = []

    init(writer: SoundFileWriter?, channels: Int, rate: Int, start: Int64, options: Replayer.Options) {
        self.writer = writer
        self.channels = channels
        self.rate = rate
        renderedTo = start
        origin = start
        firstFrame = start + Int64(((options.from ?? 0) * Double(rate)).rounded())
        lastFrame = options.to.map { start + Int64(($0 * Double(rate)).rounded()) }
    }

    /// Whether `frame` is past `to`.
    func isPastEnd(_ frame: Int64) -> Bool { lastFrame.map { frame >= $0 } ?? false }

    /// Whether rendering reached `to`.
    var isDone: Bool { lastFrame.map { renderedTo >= $0 } ?? false }

    /// Where to stop when the records run out: `to`, else the last record's frame.
    func endFrame(lastRecord: Int64) -> Int64 { lastFrame ?? lastRecord }

    /// The next chunk to render toward `target`: at most 8,192 frames, ending
    /// on an update boundary unless it reaches `target`. OpenAL ramps a
    /// change over the mix call that follows it, so a replay must split its
    /// render calls only where the captured session split its own (at the
    /// records' frames), or on update boundaries, where no ramp runs across.
    private func chunkLength(to target: Int64, interval: Int64) -> Int {
        let remaining = target - renderedTo
        guard remaining > 8_192 else { return Int(remaining) }
        let end = renderedTo - origin + 8_192
        let aligned = end - end % max(1, interval)
        return Int(aligned > renderedTo - origin ? aligned - (renderedTo - origin) : 8_192)
    }

    /// Renders from where it is to `frame` (capped at `to`), writing what lies inside `from`…`to`.
    mutating func render(engine: AudioEngine, to frame: Int64) throws {
        let target = min(frame, lastFrame ?? .max)
        while renderedTo < target {
            let chunk = chunkLength(to: target, interval: Int64(engine.updateInterval))
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
