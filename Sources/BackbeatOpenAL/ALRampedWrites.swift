#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Counts, per thread, the writes OpenAL Soft ramps over its next mix call:
/// a source's gain, placement, cone and filters, the listener, a slot's gain.
///
/// OpenAL Soft 1.19 moves a playing voice from its old gains to its new ones
/// across the whole `alcRenderSamplesSOFT` call that follows the change. So
/// an offline render that changed any of these in an update step mixes the
/// next update period on its own, and the change lands within it; a step
/// that changed none (a stop, a start, a queued buffer, a pitch) lets the
/// render mix on to the next step that has work in one call, with the same
/// samples. Every write here happens with the engine lock held, on the
/// thread running the step, so the count before and after a step is that
/// step's own, whatever other engines do on other threads.
package enum ALRampedWrites {
    /// Writes on this thread so far (wrapping).
    package static var count: UInt { counter.pointee }

    /// Counts one write (under the engine lock, on this thread).
    @inline(__always)
    static func note() { counter.pointee &+= 1 }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { $0?.deallocate() }
        return key
    }()

    private static var counter: UnsafeMutablePointer<UInt> {
        if let slot = pthread_getspecific(key) { return slot.assumingMemoryBound(to: UInt.self) }
        let slot = UnsafeMutablePointer<UInt>.allocate(capacity: 1)
        slot.initialize(to: 0)
        pthread_setspecific(key, slot)
        return slot
    }
}
