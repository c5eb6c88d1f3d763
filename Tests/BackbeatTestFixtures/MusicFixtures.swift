import Backbeat
import BackbeatLibrary
import BackbeatSupport
import Foundation
import Testing

/// Music fixtures: generated songs written with the project's own writer.
package enum Songs {
    /// Frames `range` of one continuous stereo sine (phase π/4, so frame 0 is audible).
    package static func sineFrames(
        _ range: Range<Int>, frequency: Double = 441, sampleRate: Int = 48_000, amplitude: Float = 0.5
    ) -> [Float] {
        var out = [Float](repeating: 0, count: range.count * 2)
        for (i, f) in range.enumerated() {
            let v = amplitude * Float(sin(2 * Double.pi * frequency * Double(f) / Double(sampleRate) + .pi / 4))
            out[2 * i] = v
            out[2 * i + 1] = v
        }
        return out
    }

    /// Writes interleaved stereo floats as a float WAV.
    package static func write(_ samples: [Float], to url: URL, sampleRate: Int = 48_000, channels: Int = 2) throws {
        let writer = try SoundFileWriter(
            url: url, type: .wavFloat, sampleRate: sampleRate, channelCount: channels, overwrite: true)
        try writer.write(samples[...])
        try writer.finish()
    }

    /// A stereo DC song of `value`, `seconds` long.
    package static func constant(_ value: Float, seconds: Double, in directory: URL, name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try write([Float](repeating: value, count: Int(seconds * 48_000) * 2), to: url)
        return url
    }

    /// A file that looks like a WAV but is not one.
    package static func corrupt(in directory: URL, name: String = "corrupt.wav") throws -> URL {
        let url = directory.appendingPathComponent(name)
        var bytes = Array("RIFF\u{10}\0\0\0WAVEjunk".utf8)
        bytes += (0..<4_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }
        try Data(bytes).write(to: url)
        return url
    }

    /// Runs of (value, frame count) in one channel, to check the order songs played in.
    package static func runs(_ channel: [Float], tolerance: Float = 0.01) -> [(value: Float, frames: Int)] {
        var runs: [(Float, Int)] = []
        for v in channel {
            if let last = runs.last, abs(last.0 - v) <= tolerance {
                runs[runs.count - 1].1 += 1
            } else {
                runs.append((v, 1))
            }
        }
        return runs
    }

    /// The order of DC levels (in tenths) that played for more than `minimum` frames, repeats merged.
    package static func order(_ channel: [Float], minimum: Int = 1_000) -> [Int] {
        var order: [Int] = []
        for run in runs(channel) where run.frames > minimum {
            let level = Int((run.value * 10).rounded())
            if order.last != level { order.append(level) }
        }
        return order
    }
}

/// A library of DC songs (level n/10 for song n), so the rendered level says which song played.
package func withDCLibrary(
    count: Int, seconds: Double, albums: Int = 1,
    _ body: (MediaLibrary, [MediaItem]) throws -> Void
) throws {
    try withTemporaryDirectory { dir in
        for n in 1...count {
            let url = dir.appendingPathComponent(String(format: "%02d.wav", n))
            var tags = AudioTags(title: "Song \(n)", artist: "Tester", albumTitle: "Album \((n - 1) % albums)")
            tags.trackNumber = n
            let writer = try SoundFileWriter(
                url: url, type: .wavFloat, sampleRate: 48_000, channelCount: 2, overwrite: true, tags: tags)
            try writer.write([Float](repeating: Float(n) / 10, count: Int(seconds * 48_000) * 2)[...])
            try writer.finish()
        }
        let library = try MediaLibrary(roots: [dir], index: .inMemory)
        try library.scan()
        let items = try MediaQuery.songs(in: library).items.sorted { $0.title < $1.title }
        try body(library, items)
    }
}

/// Collects a music player's notifications.
package final class NotificationRecorder: @unchecked Sendable {
    // @unchecked: `recorded` is only touched under `lock`.
    private let lock = Lock()
    private var recorded: [MusicPlayer.Event] = []
    package init(_ player: MusicPlayer) { player.observe { [weak self] n in self?.append(n) } }
    private func append(_ n: MusicPlayer.Event) { lock.withLock { recorded.append(n) } }
    package var notifications: [MusicPlayer.Event] { lock.withLock { recorded } }
}

/// The async twin of ``withDCLibrary``.
package func withDCLibraryAsync(count: Int, seconds: Double, _ body: (MediaLibrary, [MediaItem]) async throws -> Void)
    async throws
{
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("backbeat-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    for n in 1...count {
        let writer = try SoundFileWriter(
            url: dir.appendingPathComponent("\(n).wav"), type: .wavFloat, sampleRate: 48_000, channelCount: 2,
            overwrite: true, tags: AudioTags(title: "Song \(n)"))
        try writer.write([Float](repeating: Float(n) / 10, count: Int(seconds * 48_000) * 2)[...])
        try writer.finish()
    }
    let library = try MediaLibrary(roots: [dir], index: .inMemory)
    try library.scan()
    try await body(library, try MediaQuery.songs(in: library).items.sorted { $0.title < $1.title })
}
