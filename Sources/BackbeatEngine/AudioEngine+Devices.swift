import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AudioEngine {
    /// The output devices OpenAL sees, and which one is the default.
    public struct OutputDevices: Sendable, Hashable {
        /// Device names as `.device(name:)` takes them (`ALC_ALL_DEVICES_SPECIFIER`;
        /// with PulseAudio, the sinks' descriptions).
        public let names: [String]
        /// The default device's name, nil when OpenAL reports none.
        public let defaultName: String?
    }

    /// The latency in effect on an open device, as measured there rather
    /// than as requested.
    package struct MeasuredLatency: Sendable, Hashable, CustomStringConvertible {
        /// The device's rate in Hz.
        package let sampleRate: Int
        /// The period OpenAL Soft got, in frames (from `ALC_REFRESH`).
        package let periodSize: Int
        /// The number of periods Backbeat configured; nil when the user's
        /// `ALSOFT_CONF` decides.
        package let periods: Int?
        /// The latency a playing source sees: the mean of the latency part of
        /// `AL_SEC_OFFSET_LATENCY_SOFT` (one reading of `ALC_DEVICE_LATENCY_SOFT`,
        /// its same value, for a running engine).
        package let latency: MediaTime
        /// The largest reading, when several were taken.
        package let maximum: MediaTime

        /// `256 × 3 frames at 48000 Hz: 13.8 ms (max 19.4)`.
        package var description: String {
            let period: String = periods.map { "\(periodSize) × \($0) frames" } ?? "\(periodSize)-frame periods"
            let mean: Double = latency.seconds * 1000
            let most: Double = maximum.seconds * 1000
            let figures: String = "\((mean * 10).rounded() / 10) ms (max \((most * 10).rounded() / 10))"
            return period + " at \(sampleRate) Hz: " + figures
        }
    }

    /// The name the system's mixer shows for this process's sound (with
    /// PulseAudio, the stream's `application.name`). Set it before the first
    /// `.device` engine opens; nil (the default) leaves the executable's name.
    /// Devices also mark the process with the "game" media role where
    /// OpenAL Soft lets it through: on the PulseAudio client, not on the
    /// stream, which OpenAL Soft 1.19.1 gives an empty role.
    public static var applicationName: String? {
        get { ALConfig.applicationName }
        set { ALConfig.applicationName = newValue }
    }

    /// Receives the ALSA library's messages, one line each, which it would
    /// otherwise print to standard error. Set it before the first engine or
    /// device query of the process (the libraries read their settings then).
    /// With no handler, ALSA's messages are dropped and OpenAL Soft's log
    /// level is 0, so a machine with no sound device gets no library noise,
    /// only Backbeat's own errors. With one, OpenAL Soft prints its errors
    /// itself (1.19.1 has no log callback). A user's own `ALSOFT_LOGLEVEL`
    /// is left as it is.
    public static var libraryLogHandler: (@Sendable (String) -> Void)? {
        get { ALLog.handler }
        set { ALLog.handler = newValue }
    }

    /// The output devices OpenAL sees now (probed again on each call).
    ///
    /// With PulseAudio this asks the server: it blocks while a server is
    /// frozen, so do not call it from a real-time or engine callback.
    ///
    /// - Parameter latency: The period size and count to configure first (the first device of a process fixes them).
    /// - Returns: The device names and the default one.
    public static func outputDevices(latency: OutputLatency = .default) -> OutputDevices {
        latency.prepareOpenAL()
        let names = ALDevice.playbackDeviceNames()
        return OutputDevices(names: names, defaultName: ALDevice.defaultPlaybackDeviceName() ?? names.first)
    }

    /// The name of the device this engine plays through now, as
    /// ``outputDevices(latency:)`` lists it; nil for `.offline` and `.file`
    /// outputs and while a lost device has no replacement.
    public var deviceName: String? {
        withLock {
            guard case .device = output, !device.isLoopback else { return nil }
            return device.name
        }
    }

    /// The latency in effect on this engine's device: the period OpenAL Soft
    /// got and the latency it reports now. Nil for `.offline` and `.file`
    /// outputs, and while the device is lost.
    package var measuredOutputLatency: MeasuredLatency? {
        withLock {
            guard case .device = output, !device.isLoopback, device.isConnected,
                let period = device.periodFrames, let nanoseconds = device.latencyNanoseconds()
            else { return nil }
            let latency = MediaTime(value: nanoseconds, timescale: 1_000_000_000)
            return MeasuredLatency(
                sampleRate: device.sampleRate, periodSize: period,
                periods: OutputLatency.inEffect?.periods, latency: latency, maximum: latency)
        }
    }

    /// Plays silence on `device` and measures the latency a source sees
    /// (`AL_SEC_OFFSET_LATENCY_SOFT`, `count` readings 10 ms apart). Nil when
    /// it cannot play (loopback, disconnected). Sleeps: not under the engine lock.
    static func measureLatency(of device: ALDevice, count: Int = 20) -> MeasuredLatency? {
        guard let period = device.periodFrames, let reading = device.measureSourceLatency(count: count) else {
            return nil
        }
        return MeasuredLatency(
            sampleRate: device.sampleRate, periodSize: period, periods: OutputLatency.inEffect?.periods,
            latency: MediaTime(value: Int64(reading.mean * 1e9), timescale: 1_000_000_000),
            maximum: MediaTime(value: Int64(reading.max * 1e9), timescale: 1_000_000_000))
    }
}
