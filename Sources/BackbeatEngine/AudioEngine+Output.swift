import BackbeatMedia
import BackbeatOpenAL

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AudioEngine {
    /// Where an engine's sound goes.
    public enum Output: Sendable, Equatable {
        /// The system's output device in real time; nil names the default device.
        case device(name: String? = nil, latency: OutputLatency = .default)
        /// Rendered into memory by ``AudioEngine/render(frames:)``
        /// (ALC_SOFT_loopback). Engine time moves only when you render.
        case offline(sampleRate: Int = 48_000, channels: Int = 2)
        /// Rendered into a 32-bit float WAV file, completed by ``AudioEngine/shutdown()``.
        ///
        /// `pacing` says what moves engine time, and so what fills the file:
        ///
        /// - ``AudioEngine/FilePacing/asFastAsPossible`` (the default): the
        ///   game does, with ``AudioEngine/render(frames:)`` (which also
        ///   returns the frames it writes) or ``AudioEngine/advance(by:)``,
        ///   as fast as the machine mixes. The file is exact and repeatable,
        ///   as an `.offline` render is; shutdown renders the music's fade
        ///   into it.
        /// - ``AudioEngine/FilePacing/realTime``: the engine does, on a thread
        ///   of its own at a device's pace, a second of file per second of
        ///   wall time, as a game runs with the file standing in for the
        ///   speakers (a soak test, a capture of play). `render(frames:)` and
        ///   `advance(by:)` throw ``BackbeatError/Code/wrongOutput``; the file
        ///   ends when shutdown has played the music's fade.
        ///
        /// ```swift
        /// let take = try AudioEngine(output: .file(url: wavURL, pacing: .realTime))
        /// ```
        case file(url: URL, sampleRate: Int = 48_000, pacing: FilePacing = .asFastAsPossible)
    }

    /// How a `.file` output advances: who moves engine time, and how fast.
    public enum FilePacing: Sendable, Equatable {
        /// Time moves only when you call ``AudioEngine/render(frames:)`` or
        /// ``AudioEngine/advance(by:)``, as fast as the machine mixes: a
        /// render that is exact and repeatable, for tests and exports.
        case asFastAsPossible
        /// The engine renders on its own thread at the pace of a real device
        /// (a second of file per second of wall time), as a game plays to
        /// speakers; ``AudioEngine/render(frames:)`` and
        /// ``AudioEngine/advance(by:)`` throw ``BackbeatError/Code/wrongOutput``.
        case realTime
    }

    /// The period size and count of a playback device, in frames.
    ///
    /// OpenAL Soft 1.19 takes these only from its config file; Backbeat writes
    /// one before the first device opens in the process, unless `ALSOFT_CONF`
    /// is already set. The first engine of a process decides.
    public struct OutputLatency: Sendable, Hashable, CustomStringConvertible {
        /// Frames per period.
        public var periodSize: Int
        /// Periods in the device's ring.
        public var periods: Int

        /// A period size and count.
        ///
        /// - Parameters:
        ///   - periodSize: Frames per period; below 64 counts as 64.
        ///   - periods: Periods in the ring; below 2 counts as 2.
        public init(periodSize: Int, periods: Int) {
            self.periodSize = max(64, periodSize)
            self.periods = max(2, periods)
        }

        /// 128 × 3 frames, for a game played to a beat (a drum pad, a rhythm
        /// game). Measured on PulseAudio at 48 kHz: a source sees about
        /// 9 ms, within the 10-ms goal, and a `play()` call is heard about
        /// 9.5 ms later (99th percentile 11–12). OpenAL Soft then mixes every
        /// 2.7 ms, and the server holds only about 5 ms ahead: with another
        /// core busy, the server ran dry 4 to 15 times a minute (gaps of 1–5
        /// ms; `.default` 0 to 2). Where a rare gap matters more than 10 ms,
        /// use `.default`.
        public static let low = OutputLatency(periodSize: 128, periods: 3)
        /// 384 × 3 frames. Measured on PulseAudio at 48 kHz: a source sees
        /// about 20 ms (at most about 27), within the 30-ms goal; 480 × 3
        /// averaged 29–30 ms, too close to it.
        public static let `default` = OutputLatency(periodSize: 384, periods: 3)
        /// 1024 × 4 frames: about 85 ms at 48 kHz, for weak machines.
        public static let safe = OutputLatency(periodSize: 1024, periods: 4)

        /// The buffered span at a sample rate.
        ///
        /// - Parameter rate: The device's sample rate, in Hz.
        /// - Returns: The time `periodSize × periods` frames last at `rate`.
        public func duration(atSampleRate rate: Int) -> MediaTime {
            MediaTime(frames: Int64(periodSize * periods), sampleRate: rate)
        }

        public var description: String { "\(periodSize) × \(periods) frames" }
    }
}

extension AudioEngine.OutputLatency {
    /// Configures OpenAL for these periods, unless a config is already in
    /// effect; returns the latency in effect (nil: the user's `ALSOFT_CONF` decides).
    @discardableResult
    func prepareOpenAL() -> Self? {
        ALConfig.prepare(periodSize: periodSize, periods: periods).map { Self(periodSize: $0.size, periods: $0.count) }
    }

    /// The latency Backbeat configured, if it configured one.
    static var inEffect: Self? { ALConfig.periodsInEffect.map { Self(periodSize: $0.size, periods: $0.count) } }
}
