/// The capture file's layout, version 1. Little-endian throughout.
///
/// ```
/// file    = magic "BBCAPTUR" (8 bytes), version (UInt16), flags (UInt16, zero), block*
/// block   = payload length (UInt32, at most maximumBlockBytes), CRC-32 of the payload (UInt32), payload
/// payload = record+
/// record  = kind (varint), frame delta from the previous record (zigzag varint),
///           payload length (varint), payload bytes
/// ```
///
/// The writer closes a block at least every ``flushInterval`` of wall time
/// (and whenever it grows past ``targetBlockBytes``), so a game that crashes
/// loses at most that much, and every block before is whole and checked by
/// its CRC. A reader stops at the first block that is short or fails its
/// check, and says where.
package enum CaptureFormat {
    /// The eight bytes a capture starts with.
    package static let magic: [UInt8] = Array("BBCAPTUR".utf8)
    /// The version this build writes and the newest it reads.
    package static let version: UInt16 = 1
    /// Bytes before the first block: magic, version, flags.
    package static let headerBytes = 12
    /// A block's header: length and CRC.
    package static let blockHeaderBytes = 8
    /// A block's payload is closed once it reaches this size.
    package static let targetBlockBytes = 256 * 1024
    /// No block may be larger (a reader refuses a length above it without allocating).
    package static let maximumBlockBytes = 16 * 1024 * 1024
    /// No record may be larger.
    package static let maximumRecordBytes = 4 * 1024 * 1024
    /// The most wall time between a record and its block reaching the file (nanoseconds).
    package static let flushInterval: UInt64 = 500_000_000
}
