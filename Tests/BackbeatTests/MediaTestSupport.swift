import Foundation
import Testing
@testable import Backbeat

/// Runs a tool and returns its exit status and standard error; the tool must exist.
@discardableResult
func runTool(_ tool: String, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    let path = ["/usr/bin/\(tool)", "/usr/local/bin/\(tool)", "/bin/\(tool)"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? tool
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read both pipes before waiting, so a chatty tool cannot block on a full pipe.
    let errData = ThreadSafeData()
    let reader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !errData.isSet { usleep(1000) }
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData.value, as: UTF8.self))
}

/// A one-shot box for data handed from a reader thread.
final class ThreadSafeData: @unchecked Sendable {
    // Safe: every access goes through `lock`.
    private let lock = NSLock()
    private var data: Data?
    func set(_ d: Data) { lock.lock(); data = d; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return data != nil }
    var value: Data { lock.lock(); defer { lock.unlock() }; return data ?? Data() }
}

enum Fixtures {
    /// A stereo test signal: a different sine in each channel plus a little deterministic noise.
    static func music(seconds: Double, sampleRate: Int = 44_100, channels: Int = 2) -> PCMBuffer {
        let frames = Int((seconds * Double(sampleRate)).rounded())
        var samples = [Float](repeating: 0, count: frames * channels)
        var seed: UInt32 = 12345
        for f in 0..<frames {
            let t = Double(f) / Double(sampleRate)
            for c in 0..<channels {
                seed = seed &* 1_664_525 &+ 1_013_904_223
                let noise = (Float(seed >> 8) / Float(1 << 24) - 0.5) * 0.02
                let tone = 0.4 * sin(2 * Double.pi * (440 + 110 * Double(c)) * t) + 0.2 * sin(2 * Double.pi * 3000 * t)
                samples[f * channels + c] = Float(tone) + noise
            }
        }
        return try! PCMBuffer(format: AudioFormat(sampleRate: sampleRate, channelCount: channels), floats: samples)
    }

    /// Writes a WAV with sox's synth and encodes it with oggenc: an Ogg Vorbis file made by the reference tools.
    static func oggencFile(in directory: URL, seconds: Double = 3, name: String = "reference.ogg") throws -> URL {
        let wav = directory.appendingPathComponent("reference-source.wav")
        let ogg = directory.appendingPathComponent(name)
        let sox = try runTool("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav.path,
                                      "synth", String(seconds), "sine", "440", "sine", "660", "gain", "-6"])
        #expect(sox.status == 0, "sox: \(sox.stderr)")
        let enc = try runTool("oggenc", ["-Q", "-q", "4", "-o", ogg.path, wav.path])
        #expect(enc.status == 0, "oggenc: \(enc.stderr)")
        return ogg
    }
}

extension BackbeatError.Code {
    /// For `#expect(throws:)` matching on the code alone.
    func matches(_ error: any Error) -> Bool { (error as? BackbeatError)?.code == self }
}
