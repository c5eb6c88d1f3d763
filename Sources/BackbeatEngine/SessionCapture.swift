import BackbeatCapture
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A capture of a game session being written: what
/// ``AudioEngine/startCapture(to:)`` returns. `backbeat replay FILE` renders
/// it again.
public final class SessionCapture: Sendable {
    /// The capture file.
    public let url: URL
    private weak let engine: AudioEngine?
    private let recorder: CaptureRecorder

    init(url: URL, engine: AudioEngine, recorder: CaptureRecorder) {
        self.url = url
        self.engine = engine
        self.recorder = recorder
    }

    /// Whether the capture is still being written.
    public var isCapturing: Bool {
        engine?.withLock(waking: false) { engine?.captureRecorder === recorder } ?? false
    }

    /// Bytes written to the file so far.
    public var bytesWritten: Int64 { recorder.writer.bytesWritten }

    /// Ends the capture at the engine's current frame and closes the file.
    /// Idempotent; shutting the engine down ends it too.
    ///
    /// - Throws: ``BackbeatError/Code/writeFailed`` when writing the file
    ///   failed at some point (what was written before is readable).
    public func stop() throws {
        engine?.endCapture(recorder, shutDown: false)
        try recorder.writer.close()
    }
}
