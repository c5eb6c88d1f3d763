import BackbeatMedia
import BackbeatSupport
import Dispatch

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

/// One play of one song in a stream's plan. A song played twice (repeat-one,
/// a looping queue) is two entries with two identities.
struct StreamEntry: Sendable, Equatable {
    /// Unique per play, in this process.
    let id: UInt64
    /// The song: a file, or bytes read through a byte source.
    let asset: AudioAsset
    /// The stream frame decoding starts at (a seek, or 0).
    var startFrame: Int64 = 0
    /// The loop region to honour, if any.
    var loop: StreamLoop?

    var url: URL { asset.url }

    static func == (a: StreamEntry, b: StreamEntry) -> Bool {
        a.id == b.id && a.asset === b.asset && a.startFrame == b.startFrame && a.loop == b.loop
    }

    static func nextID() -> UInt64 { UniqueID.next() }
}

/// How an entry loops: explicit loop points (nil: the file's tags, if any)
/// played as `looping` says.
struct StreamLoop: Sendable, Equatable {
    var points: LoopPoints?
    var looping: Looping
}

/// What the decoder produced, in play order.
enum StreamChunk {
    /// The entry opened; its audio follows. `frameCount` is its length in stream frames.
    case opened(entry: UInt64, startFrame: Int64, frameCount: Int64)
    /// Interleaved stereo stream-format samples of `entry`, with per-channel peak and sum of squares.
    case audio(entry: UInt64, samples: [Float], levels: ChunkLevels)
    /// The entry's last frame precedes this marker.
    case ended(entry: UInt64)
    /// The entry could not be opened or read; the decoder moved on to the next.
    case failed(entry: UInt64, error: BackbeatError)
}

/// The level of one chunk, per channel, for metering.
struct ChunkLevels: Sendable {
    // Streams are stereo (StreamDecoder.channelCount): two lanes, no arrays,
    // so a chunk's levels cost no allocation.
    var peak = SIMD2<Float>()
    var sumOfSquares = SIMD2<Float>()
    var frames: Int

    init(samples: [Float], channels: Int) {
        frames = samples.count / channels
        samples.withUnsafeBufferPointer { s in
            for c in 0..<min(channels, 2) {
                var p: Float = 0
                var sum: Float = 0
                var i = c
                while i < s.count {
                    let v = s[i]
                    p = max(p, abs(v))
                    sum += v * v
                    i += channels
                }
                peak[c] = p
                sumOfSquares[c] = sum
            }
        }
    }
}

/// The decoding half of a stream: a plan of entries, a short queue of decoded
/// chunks, and the decoder working through the plan.
///
/// Two locks, always taken in this order: `decodeLock` (held while decoding
/// one chunk) then `stateLock` (held briefly to publish it). The engine's
/// update step takes `stateLock` alone on real-time outputs, so it never waits
/// for a decode; on offline outputs it may take `decodeLock` to decode the
/// next chunk itself. A generation number drops chunks decoded for a plan that
/// has since been replaced (a seek, a skip).
final class StreamFeed: @unchecked Sendable {
    // @unchecked: `plan`, `ready`, `opened`, `generation` and `fillScheduled` are
    // touched only under `stateLock`; `cursor` only under `decodeLock`.

    let sampleRate: Int
    let chunkFrames: Int
    /// Audio chunks decoded ahead, at most.
    let readyLimit: Int

    private let stateLock = Lock()
    private let decodeLock = Lock()
    private var generation: UInt64 = 0
    private var plan: [StreamEntry] = []
    private var ready: [StreamChunk] = []
    private var readyAudio = 0
    /// Entries the decoder reached in this generation (opened or failed), in order.
    private var sequence: [UInt64] = []
    private var failed = Set<UInt64>()
    /// The entry opened and not yet finished (the plan's first).
    private var decoding: UInt64?
    private var fillScheduled = false
    private var closed = false
    /// Holds the background decoder back (tests starve a stream with it).
    var holdsBackground: Bool {
        get { stateLock.withLock { held } }
        set { stateLock.withLock { held = newValue } }
    }
    private var held = false

    private struct Cursor {
        var generation: UInt64 = .max
        var entry: UInt64 = 0
        var decoder: StreamDecoder?
    }
    private var cursor = Cursor()
    private static let queue = DispatchQueue(
        label: "Backbeat stream decoder", qos: .userInitiated, attributes: .concurrent)

    init(sampleRate: Int, chunkFrames: Int, readyLimit: Int) {
        self.sampleRate = sampleRate
        self.chunkFrames = chunkFrames
        self.readyLimit = readyLimit
    }

    // MARK: Plan (engine side)

    /// Drops everything decoded and starts over with `entries`.
    func reset(_ entries: [StreamEntry]) {
        stateLock.withLock {
            generation &+= 1
            plan = entries
            ready.removeAll()
            readyAudio = 0
            sequence.removeAll()
            failed.removeAll()
            decoding = nil
        }
    }

    /// Replaces what follows `current` with `upcoming`, keeping what is already
    /// decoded when it agrees with the new order. Entries that failed produced
    /// no audio, so they are left out of the comparison. Returns false when
    /// audio of an entry no longer wanted is already decoded (the caller then
    /// restarts the stream).
    func setUpcoming(after current: UInt64, _ upcoming: [StreamEntry]) -> Bool {
        stateLock.withLock {
            guard let k = sequence.firstIndex(of: current) else {
                // Not reached by the decoder yet: it is still in the plan; keep it first.
                guard let i = plan.firstIndex(where: { $0.id == current }) else { return false }
                plan = Array(plan[...i]) + upcoming
                return true
            }
            let committed = sequence[(k + 1)...].filter { !failed.contains($0) }
            var j = 0
            for id in committed {
                while j < upcoming.count, failed.contains(upcoming[j].id) { j += 1 }
                guard j < upcoming.count, upcoming[j].id == id else { return false }
                j += 1
            }
            let rest = upcoming[j...].filter { !failed.contains($0.id) }
            if let decoding, decoding == current || committed.contains(decoding), let first = plan.first {
                plan = [first] + rest
            } else {
                plan = Array(rest)
            }
            return true
        }
    }

    /// Whether the plan and the decoded queue are both empty.
    var isExhausted: Bool { stateLock.withLock { plan.isEmpty && ready.isEmpty } }

    /// Audio frames decoded and waiting to be queued.
    var readyFrames: Int { stateLock.withLock { readyAudio * chunkFrames } }

    /// Takes the next chunk; on offline outputs (`decodeIfNeeded`) decodes it
    /// here when the background decoder has not got to it yet.
    func take(decodeIfNeeded: Bool) -> StreamChunk? {
        if let chunk = popReady() { return chunk }
        guard decodeIfNeeded else { return nil }
        while decodeStep() {
            if let chunk = popReady() { return chunk }
        }
        return popReady()
    }

    private func popReady() -> StreamChunk? {
        stateLock.withLock {
            guard !ready.isEmpty else { return nil }
            let chunk = ready.removeFirst()
            if case .audio = chunk { readyAudio -= 1 }
            return chunk
        }
    }

    /// Starts the background decoder if there is room and work.
    func scheduleFill() {
        let start = stateLock.withLock { () -> Bool in
            guard !fillScheduled, !closed, !held, !plan.isEmpty, readyAudio < readyLimit else { return false }
            fillScheduled = true
            return true
        }
        guard start else { return }
        Self.queue.async(execute: fillBlock)
    }

    /// The work ``scheduleFill()`` hands the decoding queue, made once: a
    /// closure converted at every call would allocate a block on the engine's
    /// update thread each time a chunk is taken.
    private lazy var fillBlock: @Sendable @convention(block) () -> Void = { [weak self] in self?.fillUntilReady() }

    private func fillUntilReady() {
        while true {
            let more = stateLock.withLock { !closed && !plan.isEmpty && readyAudio < readyLimit }
            if !more || !decodeStep() { break }
        }
        stateLock.withLock { fillScheduled = false }
    }

    /// Stops background work and frees the decoder.
    func close() {
        stateLock.withLock {
            closed = true
            plan.removeAll()
            ready.removeAll()
            readyAudio = 0
        }
        decodeLock.withLock { cursor = Cursor() }
    }

    /// Bytes this feed holds: decoded chunks waiting plus the decoder's scratch (estimate).
    var bufferedBytes: Int { stateLock.withLock { readyAudio * chunkFrames * StreamDecoder.channelCount * 4 } }

    // MARK: Decoding (either thread)

    /// Decodes one chunk (or opens or finishes one entry) for the plan's first
    /// entry and publishes it. Returns false when there was nothing to do.
    @discardableResult
    func decodeStep() -> Bool {
        decodeLock.lock()
        defer { decodeLock.unlock() }
        guard
            let (gen, entry) = stateLock.withLock({ () -> (UInt64, StreamEntry)? in
                guard !closed, readyAudio < readyLimit, let first = plan.first else { return nil }
                return (generation, first)
            })
        else { return false }

        var chunk: StreamChunk
        var finishedEntry = false
        if cursor.generation != gen || cursor.entry != entry.id || cursor.decoder == nil {
            cursor = Cursor(generation: gen, entry: entry.id, decoder: nil)
            do {
                let decoder = try StreamDecoder(asset: entry.asset, sampleRate: sampleRate, loop: entry.loop)
                if entry.startFrame > 0 { try decoder.seek(toFrame: entry.startFrame) }
                cursor.decoder = decoder
                chunk = .opened(entry: entry.id, startFrame: decoder.position, frameCount: decoder.frameCount)
            } catch {
                chunk = .failed(entry: entry.id, error: Self.typed(error, entry))
                finishedEntry = true
            }
        } else if let decoder = cursor.decoder {
            do {
                let samples = try decoder.read(frames: chunkFrames)
                if samples.isEmpty {
                    chunk = .ended(entry: entry.id)
                    finishedEntry = true
                } else {
                    chunk = .audio(
                        entry: entry.id, samples: samples,
                        levels: ChunkLevels(samples: samples, channels: StreamDecoder.channelCount))
                }
            } catch {
                // A read error mid-song (the file was truncated or damaged under
                // us): end the entry where the good audio stopped, and report it.
                chunk = .failed(entry: entry.id, error: Self.typed(error, entry))
                finishedEntry = true
            }
        } else {
            return false
        }
        if finishedEntry { cursor.decoder = nil }

        stateLock.withLock {
            guard generation == gen, plan.first?.id == entry.id else { return }
            switch chunk {
            case .opened:
                sequence.append(entry.id)
                decoding = entry.id
            case .failed:
                if decoding == entry.id {
                    // It had started: it still ends, so the player moves on once.
                    ready.append(chunk)
                    chunk = .ended(entry: entry.id)
                } else {
                    sequence.append(entry.id)
                    failed.insert(entry.id)
                }
            default:
                break
            }
            if finishedEntry { decoding = nil }
            if case .audio = chunk { readyAudio += 1 }
            ready.append(chunk)
            if finishedEntry { plan.removeFirst() }
        }
        return true
    }

    private static func typed(_ error: any Error, _ entry: StreamEntry) -> BackbeatError {
        (error as? BackbeatError) ?? BackbeatError(.readFailed, operation: "stream", url: entry.url, reason: "\(error)")
    }
}
