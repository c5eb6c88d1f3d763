import BackbeatCapture
import BackbeatSupport

/// An engine's capture while it is on: the file being written, and the
/// numbers it gives the objects it has seen.
///
/// Every member runs under the engine lock (the writer has its own lock for
/// its thread), so the ids follow the order of the game's calls.
package final class CaptureRecorder: @unchecked Sendable {
    /// The file being written.
    package let writer: CaptureFileWriter
    /// This capture's number in the process: a ``CaptureTag`` from an earlier capture is stale.
    package let generation: UInt32
    private var nextID: UInt32 = 1

    private static let generations = LockedValueBox<UInt32>(0)

    /// A recorder writing to `writer`.
    ///
    /// - Parameter writer: The capture file.
    package init(writer: CaptureFileWriter) {
        self.writer = writer
        generation = Self.generations.withLockedValue { value in
            value &+= 1
            if value == 0 { value = 1 }
            return value
        }
    }

    /// The capture's number for the object that owns `tag`, and whether the
    /// capture has not seen it before (the caller then writes a record that
    /// declares it: what it is and how it was made).
    ///
    /// - Parameter tag: The object's tag, stored in the object.
    /// - Returns: Its id in this capture, and whether it is new to it.
    package func identify(_ tag: inout CaptureTag) -> (id: UInt32, isNew: Bool) {
        if tag.generation == generation { return (tag.id, false) }
        tag = CaptureTag(generation: generation, id: nextID)
        nextID &+= 1
        return (tag.id, true)
    }
}

/// What an object remembers of the capture that last saw it: which capture
/// (its generation) and its id there. A zero generation: never seen.
package struct CaptureTag: Sendable, Equatable {
    package var generation: UInt32
    package var id: UInt32

    /// A tag no capture has seen.
    package init() {
        generation = 0
        id = 0
    }

    /// A tag from a capture.
    ///
    /// - Parameters:
    ///   - generation: The capture's generation.
    ///   - id: The object's id in it.
    package init(generation: UInt32, id: UInt32) {
        self.generation = generation
        self.id = id
    }
}
