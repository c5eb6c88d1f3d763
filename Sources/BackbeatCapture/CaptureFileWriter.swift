import BackbeatMedia
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes a capture file as the game runs.
///
/// ``append(_:frame:_:)`` encodes a record into memory (no system call, and
/// no allocation short of a burst larger than a block: both blocks are
/// reserved and touched up front) and returns; a thread of its own
/// closes a block and writes it at least every ``CaptureFormat/flushInterval``
/// of wall time, or sooner once a block's worth is waiting. So a crash
/// loses at most the last half second, and the game's thread never waits
/// for the disk.
package final class CaptureFileWriter: @unchecked Sendable {
    private struct State {
        var pending = CaptureByteBlock(capacity: CaptureFileWriter.reservedBlockBytes)
        var scratch = CaptureEncoder()
        var lastFrame: Int64 = 0
        var closing = false
        var error: BackbeatError?
        var bytesWritten: Int64 = 0
        var records = 0
    }

    /// Where the capture goes.
    package let url: URL
    private let state = ConditionLock(State())
    private let descriptor: Int32
    private var thread: JoinableThread?

    /// Creates (or replaces) the file at `url`, writes its header and starts the writing thread.
    ///
    /// - Parameter url: The capture file.
    /// - Throws: ``BackbeatError/Code/writeFailed`` when the file cannot be made.
    package init(url: URL) throws {
        self.url = url
        let fd = Glibc.open(url.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw BackbeatError(
                .writeFailed, operation: "startCapture", url: url, reason: String(cString: strerror(errno)))
        }
        descriptor = fd
        var header = CaptureFormat.magic
        withUnsafeBytes(of: CaptureFormat.version.littleEndian) { header.append(contentsOf: $0) }
        header.append(contentsOf: [0, 0])
        if let reason = Self.writeAll(header, to: fd) {
            Glibc.close(fd)
            throw BackbeatError(.writeFailed, operation: "startCapture", url: url, reason: reason)
        }
        state.withLockedValue { $0.bytesWritten = Int64(header.count) }
        let thread = JoinableThread(name: "Backbeat capture") { [self] in run() }
        self.thread = thread
        thread.start()
    }

    deinit { Glibc.close(descriptor) }

    /// Appends one record. Call it from any thread; records keep the order of the calls.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - frame: The engine frame at which it took effect.
    ///   - encode: Writes the record's payload.
    package func append(_ kind: CaptureKind, frame: Int64, _ encode: (inout CaptureEncoder) -> Void) {
        state.update { state in
            guard !state.closing else { return false }
            state.scratch.removeAll()
            encode(&state.scratch)
            // The record's header goes straight into the block (no encoder
            // of its own: that would be an allocation per record).
            state.pending.appendVarint(UInt64(kind.rawValue))
            state.pending.appendVarint(Self.zigzag(frame &- state.lastFrame))
            state.pending.appendVarint(UInt64(state.scratch.bytes.count))
            state.lastFrame = frame
            state.scratch.bytes.withUnsafeBytes { state.pending.append($0) }
            state.records += 1
            return state.pending.count >= CaptureFormat.targetBlockBytes
        }
    }

    /// The most payload ``append(_:frame:maximumPayloadBytes:_:)`` takes:
    /// its length is then one byte, written after the payload.
    package static let smallPayloadLimit = 0x7F

    /// Appends one small record (a play: the records a game makes many of)
    /// whose payload `write` puts straight into the block, with no encoder
    /// between: the room is made once, and each value is a few stores. The
    /// bytes are those ``append(_:frame:_:)`` writes for the same values.
    ///
    /// - Parameters:
    ///   - kind: What happened.
    ///   - frame: The engine frame at which it took effect.
    ///   - maximumPayloadBytes: The most `write` can write, at most
    ///     ``smallPayloadLimit`` (writing more traps).
    ///   - write: Writes the record's payload.
    package func append(
        _ kind: CaptureKind, frame: Int64, maximumPayloadBytes: Int, _ write: (inout CaptureRecordBytes) -> Void
    ) {
        precondition((0...Self.smallPayloadLimit).contains(maximumPayloadBytes), "a small record is under 128 bytes")
        state.update { state in
            guard !state.closing else { return false }
            // Kind (3 bytes at most), frame delta (10), length (1), payload.
            let at = state.pending.room(for: 14 + maximumPayloadBytes)
            var header = CaptureByteBlock.putVarint(UInt64(kind.rawValue), at: at)
            header += CaptureByteBlock.putVarint(Self.zigzag(frame &- state.lastFrame), at: at + header)
            var payload = CaptureRecordBytes(base: at + header + 1, limit: maximumPayloadBytes)
            write(&payload)
            at[header] = UInt8(payload.count)
            state.pending.commit(header + 1 + payload.count)
            state.lastFrame = frame
            state.records += 1
            return state.pending.count >= CaptureFormat.targetBlockBytes
        }
    }

    /// A frame delta as the header stores it: zigzag, so a small step back stays short.
    private static func zigzag(_ delta: Int64) -> UInt64 {
        UInt64(bitPattern: (delta << 1) ^ (delta >> 63))
    }

    /// Bytes reserved (and touched) for each of the two blocks that trade
    /// places: a full block and as much again while the writing thread
    /// wakes. Growing a block, or meeting a fresh page in it, would cost the
    /// game's thread microseconds in an append (a copy, or a page fault per
    /// 4 KiB: about one play in a hundred).
    package static let reservedBlockBytes = 2 * CaptureFormat.targetBlockBytes

    /// Bytes in the file so far (header and blocks written).
    package var bytesWritten: Int64 { state.withLockedValue { $0.bytesWritten } }

    /// Records appended so far.
    package var recordCount: Int { state.withLockedValue { $0.records } }

    /// Writes what is waiting, stops the thread and closes the file. Idempotent.
    ///
    /// - Throws: The first write error the file met (the capture up to it is readable).
    package func close() throws {
        state.withLockedValue { $0.closing = true }
        thread?.joinUnlessCurrent()
        thread = nil
        if let error = state.withLockedValue({ $0.error }) { throw error }
    }

    private func run() {
        // The block being written and the one the game appends to trade
        // places, so neither side allocates or copies a block to hand it over.
        var block = CaptureByteBlock(capacity: Self.reservedBlockBytes)
        while true {
            let deadline = MonotonicClock.now() + CaptureFormat.flushInterval
            _ = state.wait(until: deadline) { $0.closing || $0.pending.count >= CaptureFormat.targetBlockBytes }
            let closing = state.withLockedValue { state -> Bool in
                swap(&block, &state.pending)
                return state.closing
            }
            if block.count > 0 { block.withBytes { writeBlock($0) } }
            block.removeAll()
            if closing { return }
        }
    }

    private func writeBlock(_ payload: UnsafeRawBufferPointer) {
        do {
            var start = 0
            while start < payload.count {
                let end = min(payload.count, start + CaptureFormat.maximumBlockBytes)
                // Blocks end on record boundaries only when they fit; a longer
                // run is split, and the reader joins blocks before reading records.
                let chunk = UnsafeRawBufferPointer(rebasing: payload[start..<end])
                let header = (UInt32(chunk.count).littleEndian, CRC32.checksum(chunk).littleEndian)
                let reason = withUnsafeBytes(of: header) { header in
                    Self.writeAll([header, chunk], to: descriptor)
                }
                if let reason {
                    state.withLockedValue { state in
                        if state.error == nil {
                            state.error = BackbeatError(.writeFailed, operation: "capture", url: url, reason: reason)
                        }
                    }
                    return
                }
                state.withLockedValue { $0.bytesWritten += Int64(CaptureFormat.blockHeaderBytes + chunk.count) }
                start = end
            }
        }
    }

    /// Writes every byte, retrying short writes; returns the system's reason on failure.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        bytes.withUnsafeBytes { writeAll([$0], to: fd) }
    }

    /// Writes `parts` one after the other in one system call where it can
    /// (a block's header and payload), retrying short writes; returns the
    /// system's reason on failure.
    private static func writeAll(_ parts: [UnsafeRawBufferPointer], to fd: Int32) -> String? {
        var parts = parts.filter { !$0.isEmpty }
        while !parts.isEmpty {
            var vectors = parts.map {
                iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count)
            }
            var written = Glibc.writev(fd, &vectors, Int32(vectors.count))
            if written < 0 {
                if errno == EINTR { continue }
                return String(cString: strerror(errno))
            }
            // Drop what went out: whole parts, then the front of a part cut short.
            while written > 0, let first = parts.first {
                if written >= first.count {
                    written -= first.count
                    parts.removeFirst()
                } else {
                    parts[0] = UnsafeRawBufferPointer(rebasing: first[written...])
                    written = 0
                }
            }
        }
        return nil
    }
}
