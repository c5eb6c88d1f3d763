import BackbeatOpenAL

/// A sound's buffers as they were before its file was reloaded, kept for
/// the voices that were playing them: each such voice holds it (pinned in
/// its record) and finishes on it; the last one to end frees the buffers
/// (``SoundCache/releaseLocked(_:)``). Read and written under the engine lock.
final class RetiredSound: @unchecked Sendable {
    // @unchecked: touched only under the engine lock (the voice pool's and the cache's members).

    /// The sound as it was: its buffers, length and loop region.
    let resident: SoundEffect.Resident
    /// Every OpenAL buffer it holds (the whole sound, or intro, region and tail).
    let buffers: [ALBufferName]
    /// What it takes in the cache until freed.
    let bytes: Int
    /// Voices still playing it.
    var voices = 0
    /// Its buffers were deleted (or went with a replaced device).
    var isFreed = false

    init(resident: SoundEffect.Resident, buffers: [ALBufferName], bytes: Int) {
        self.resident = resident
        self.buffers = buffers
        self.bytes = bytes
    }
}
