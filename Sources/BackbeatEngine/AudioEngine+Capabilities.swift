import BackbeatMedia
import BackbeatOpenAL
import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AudioEngine {
    /// What this machine's OpenAL offers Backbeat.
    package struct Capabilities: Sendable {
        /// An extension Backbeat relies on, and whether OpenAL has it.
        package struct Extension: Sendable {
            /// The extension's name, such as `ALC_SOFT_loopback`.
            package let name: String
            /// Whether OpenAL reports it.
            package let isPresent: Bool
        }

        /// The OpenAL version and renderer.
        package let version: String
        /// The extensions Backbeat relies on.
        package let extensions: [Extension]
        /// Sources a context grants (mono plus stereo).
        package let maxSources: Int
        /// Playback devices OpenAL enumerates.
        package let playbackDevices: [String]
        /// The default playback device's name, when OpenAL reports one.
        package let defaultDeviceName: String?
        /// The default device's sample rate, or the error opening it gave.
        package let defaultDevice: Result<Int, BackbeatError>
        /// The period size and count Backbeat configured, or nil when the
        /// user's `ALSOFT_CONF` decides.
        package let configuredLatency: OutputLatency?
        /// The latency measured on the default device while a source played
        /// on it (the period it got and `AL_SEC_OFFSET_LATENCY_SOFT`), when it opened.
        package let measuredLatency: MeasuredLatency?
        /// The HRTF data sets OpenAL Soft offers a 48 kHz stereo output.
        package let hrtfDataSets: [String]
        /// Those of ``hrtfDataSets`` that load at 48 kHz (OpenAL Soft 1.19
        /// runs a data set only at its own sample rate).
        package let usableHRTFDataSets: [String]
        /// Whether the default device renders through an HRTF when opened as
        /// Backbeat opens it, and why, when it opened.
        package let defaultDeviceHRTF: HRTFStatus?
    }

    /// Extensions Backbeat's features stand on.
    static let reliedOnExtensions = [
        "ALC_SOFT_loopback", "ALC_SOFT_pause_device", "ALC_SOFT_device_clock",
        "ALC_SOFT_output_limiter", "ALC_EXT_disconnect", "ALC_EXT_thread_local_context",
        "ALC_EXT_EFX", "AL_SOFT_source_latency", "AL_SOFT_deferred_updates",
        "AL_EXT_STEREO_ANGLES", "AL_EXT_FLOAT32",
    ]

    /// Probes OpenAL: a loopback device for version and extensions, then the
    /// default playback device. Never throws; a device that will not open is
    /// reported in ``Capabilities/defaultDevice``.
    ///
    /// - Parameter latency: The period size and count to configure first, as an engine would.
    /// - Returns: What OpenAL offers.
    package static func capabilities(latency: OutputLatency = .default) -> Capabilities {
        latency.prepareOpenAL()
        var version = "unavailable"
        var extensions: [Capabilities.Extension] = []
        var maxSources = 0
        var hrtfDataSets: [String] = []
        var usableHRTFDataSets: [String] = []
        if let loopback = try? ALDevice.openLoopback(sampleRate: 48_000, channels: 2) {
            version = loopback.versionDescription
            hrtfDataSets = loopback.hrtfDataSetNames
            usableHRTFDataSets = hrtfDataSets.indices.filter { index in
                (try? loopback.setHRTF(.on, dataSet: index)) == true
                    && loopback.hrtfDataSetInUse == hrtfDataSets[index]
            }.map { hrtfDataSets[$0] }
            extensions = reliedOnExtensions.map { .init(name: $0, isPresent: loopback.hasExtension($0)) }
            maxSources = loopback.maxSources
            loopback.close()
        }
        let devices = outputDevices(latency: latency)
        let defaultDevice: Result<Int, BackbeatError>
        var measuredLatency: MeasuredLatency?
        var defaultDeviceHRTF: HRTFStatus?
        do {
            let device = try ALDevice.openPlayback(name: nil)
            defaultDevice = .success(device.sampleRate)
            defaultDeviceHRTF = HRTFStatus(device.hrtfStatus)
            measuredLatency = measureLatency(of: device)
            device.close()
        } catch let error as BackbeatError {
            defaultDevice = .failure(error)
        } catch {
            defaultDevice = .failure(BackbeatError(.deviceUnavailable, operation: "alcOpenDevice", reason: "\(error)"))
        }
        return Capabilities(
            version: version, extensions: extensions, maxSources: maxSources,
            playbackDevices: devices.names, defaultDeviceName: devices.defaultName, defaultDevice: defaultDevice,
            configuredLatency: OutputLatency.inEffect, measuredLatency: measuredLatency,
            hrtfDataSets: hrtfDataSets, usableHRTFDataSets: usableHRTFDataSets, defaultDeviceHRTF: defaultDeviceHRTF)
    }
}
