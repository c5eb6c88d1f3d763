import BackbeatCapture
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Capture: every call that changes what is heard, written to a file with
/// the engine frame at which it took effect, for `backbeat replay`.
extension AudioEngine {
    /// Starts writing a capture of this session to `url` (replacing a file
    /// there). From here on, every call that changes what is heard is
    /// recorded with the engine frame at which it took effect: sounds and
    /// banks loaded (path, size and content hash, not the audio), voices,
    /// buses, snapshots, game parameters, the listener, reverb, music and
    /// session changes. `backbeat replay FILE --output out.wav` renders it
    /// again; a capture begun as the engine opened, of an offline or file
    /// session, replays bit for bit. Starting the game with
    /// `BACKBEAT_CAPTURE=FILE` in its environment does the same without code.
    ///
    /// The file is written as the game runs, half a second at most behind it,
    /// so a crash loses little and leaves what was written readable.
    ///
    /// - Parameter url: The capture file.
    /// - Returns: The capture, to ``SessionCapture/stop()``.
    /// - Throws: ``BackbeatError/Code/sessionCaptureUnavailable`` when a capture of
    ///   this engine is already being written, ``BackbeatError/Code/writeFailed``
    ///   when the file cannot be made, ``BackbeatError/Code/engineShutDown``
    ///   after shutdown.
    public func startCapture(to url: URL) throws -> SessionCapture {
        let operation = "startCapture"
        try withLock(waking: false) {
            try checkUsable(operation)
            if captureRecorder != nil {
                throw BackbeatError(
                    .sessionCaptureUnavailable, operation: operation, url: url,
                    reason: "this engine is already capturing")
            }
        }
        let writer = try CaptureFileWriter(url: url)
        let recorder = CaptureRecorder(writer: writer)
        let started = withLock { () -> Bool in
            guard captureRecorder == nil, isRunningLocked else { return false }
            let frame = currentFrameLocked
            writer.append(.open, frame: frame) { openingLocked(startFrame: frame).encode(into: &$0) }
            captureRecorder = recorder
            for observer in captureObservers.compactMap(\.observer) { observer.captureDidStartLocked(recorder) }
            return true
        }
        guard started else {
            try? writer.close()
            throw BackbeatError(
                .sessionCaptureUnavailable, operation: operation, url: url,
                reason: "the engine shut down or began another capture meanwhile")
        }
        return SessionCapture(url: url, engine: self, recorder: recorder)
    }

    /// Appends a record stamped with the current engine frame, when a
    /// capture is on; otherwise costs one check.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - encode: Writes its payload.
    @inline(__always)
    package func recordLocked(_ kind: CaptureKind, _ encode: (inout CaptureEncoder) -> Void) {
        guard let captureRecorder else { return }
        preconditionLocked()
        captureRecorder.writer.append(kind, frame: currentFrameLocked, encode)
    }

    /// Appends a record stamped with `frame`, when a capture is on: for what
    /// took effect on another frame than the clock reads now (a play the
    /// device's mixer started after the engine looked at its clock).
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - frame: The engine frame it took effect on.
    ///   - encode: Writes its payload.
    @inline(__always)
    package func recordLocked(_ kind: CaptureKind, frame: Int64, _ encode: (inout CaptureEncoder) -> Void) {
        guard let captureRecorder else { return }
        preconditionLocked()
        captureRecorder.writer.append(kind, frame: frame, encode)
    }

    /// Appends a small record stamped with `frame`, its payload written
    /// straight into the capture's block, when a capture is on: for what a
    /// game does many times a second (a play). See
    /// ``CaptureFileWriter/append(_:frame:maximumPayloadBytes:_:)``.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - frame: The engine frame it took effect on.
    ///   - maximumPayloadBytes: The most `write` can write (under 128).
    ///   - write: Writes its payload.
    @inline(__always)
    package func recordLocked(
        _ kind: CaptureKind, frame: Int64, maximumPayloadBytes: Int, _ write: (inout CaptureRecordBytes) -> Void
    ) {
        guard let captureRecorder else { return }
        preconditionLocked()
        captureRecorder.writer.append(kind, frame: frame, maximumPayloadBytes: maximumPayloadBytes, write)
    }

    /// The capture's id for an object (by its `tag`), writing the record that
    /// declares it (`declare`) the first time this capture sees it. Nil when
    /// no capture is on.
    ///
    /// - Parameters:
    ///   - tag: The object's tag.
    ///   - kind: The kind of its declaring record.
    ///   - declare: Writes the declaring record's payload after the id.
    /// - Returns: The object's id in this capture, or nil.
    @inline(__always)
    package func captureIDLocked(
        _ tag: inout CaptureTag, declaring kind: CaptureKind, _ declare: (inout CaptureEncoder) -> Void
    ) -> UInt32? {
        guard let captureRecorder else { return nil }
        preconditionLocked()
        let (id, isNew) = captureRecorder.identify(&tag)
        if isNew {
            captureRecorder.writer.append(kind, frame: currentFrameLocked) { encoder in
                encoder.append(id)
                declare(&encoder)
            }
        }
        return id
    }

    /// Whether a capture is being written.
    package var isCapturingLocked: Bool {
        preconditionLocked()
        return captureRecorder != nil
    }

    /// The opening record for a capture starting at `startFrame`.
    func openingLocked(startFrame: Int64) -> CaptureOpening {
        preconditionLocked()
        let kind: CaptureOpening.OutputKind
        var periodSize = 0
        var periods = 0
        var deviceName: String?
        switch output {
        case .device(let name, let latency):
            kind = .device
            periodSize = latency.periodSize
            periods = latency.periods
            deviceName = name
        case .offline: kind = .offline
        case .file: kind = .file
        }
        return CaptureOpening(
            outputKind: kind, sampleRate: sampleRate, channelCount: channelCount, periodSize: periodSize,
            periods: periods, deviceName: deviceName, maximumVoices: maximumVoices, startFrame: startFrame,
            updateInterval: updateInterval)
    }

    /// Ends `recorder`'s capture (if it is still this engine's) with its end record.
    func endCapture(_ recorder: CaptureRecorder, shutDown: Bool) {
        withLock(waking: false) {
            guard captureRecorder === recorder else { return }
            recorder.writer.append(.end, frame: currentFrameLocked) { $0.append(shutDown) }
            captureRecorder = nil
        }
    }

    /// Ends the capture, if one is on, once shutdown's music fade has played.
    func finishCaptureAtShutdown() {
        guard let recorder = withLock(waking: false, { captureRecorder }) else { return }
        endCapture(recorder, shutDown: true)
        do { try recorder.writer.close() } catch { logCaptureFailure(error) }
    }

    /// `BACKBEAT_CAPTURE=FILE`: starts a capture as the engine opens; a
    /// failure is a warning, not an error the game must handle.
    func startCaptureIfAsked(environment: [String: String]) {
        guard let path = environment["BACKBEAT_CAPTURE"], !path.isEmpty else { return }
        do {
            _ = try startCapture(to: URL(fileURLWithPath: path))
        } catch {
            logCaptureFailure(error)
        }
    }

    private func logCaptureFailure(_ error: any Error) {
        withLock(waking: false) {
            logLocked(.warning, "Capture failed: \(error)", key: "capture", problem: "captureFailed")
        }
        deliverPendingEvents()
    }

    /// Registers `observer` to hear when a capture starts (held weakly).
    ///
    /// - Parameter observer: What writes the state a capture needs at its start.
    package func addCaptureObserverLocked(_ observer: any CaptureObserver) {
        preconditionLocked()
        captureObservers.removeAll { $0.observer == nil }
        captureObservers.append(WeakCaptureObserver(observer: observer))
    }
}

/// A capture observer, held weakly.
struct WeakCaptureObserver {
    weak var observer: (any CaptureObserver)?
}

/// Something above the engine that must write records when a capture
/// starts (the state a replay needs that was set before it: HRTF, the
/// listener). Registered with ``AudioEngine/addCaptureObserverLocked(_:)``.
package protocol CaptureObserver: AnyObject {
    /// A capture started; write what it needs to know of the current state.
    ///
    /// - Parameter recorder: The new capture.
    func captureDidStartLocked(_ recorder: CaptureRecorder)
}
