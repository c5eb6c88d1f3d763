import ArgumentParser
import Backbeat

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print OpenAL's version, the extensions Backbeat relies on, and the outputs available.")

    func run() throws {
        let caps = AudioEngine.capabilities()
        print("OpenAL: \(caps.version)")
        print("Sources per context: \(caps.maxSources)")
        print("Extensions:")
        for ext in caps.extensions {
            print("  \(ext.isPresent ? "yes" : "NO ") \(ext.name)")
        }
        print("Outputs:")
        switch caps.defaultDevice {
        case .success(let rate):
            let devices = caps.playbackDevices.isEmpty ? "default" : caps.playbackDevices.joined(separator: ", ")
            print("  device   available at \(rate) Hz (\(devices))")
        case .failure(let error):
            print("  device   unavailable: \(error)")
        }
        print("  offline  available (ALC_SOFT_loopback, rendered on request)")
        print("  file     available (WAV, as fast as possible or paced in real time)")
        if let latency = caps.configuredLatency {
            let ms = latency.duration(atSampleRate: 48_000).seconds * 1000
            print("Latency: \(latency) (\(String(format: "%.1f", ms)) ms at 48 kHz, written to OpenAL Soft's config)")
        } else {
            print("Latency: decided by ALSOFT_CONF")
        }
        if let reported = caps.deviceLatency {
            print("Device reports: \(String(format: "%.1f", reported.seconds * 1000)) ms")
        }
    }
}
