import Backbeat
import BackbeatMedia
import Foundation
import FuzzDriver
import FuzzSupport

// libFuzzer entry: the MPRIS object's method dispatch, driven directly (no
// bus) with calls decoded from the fuzz bytes: interfaces and members known
// and random, argument lists of any D-Bus type (NaN and infinite doubles,
// extreme integers, nested containers). It controls a real music player on
// an offline engine, which renders between calls.
@testable import BackbeatDesktop

/// A song on disk for the player's queue.
struct FuzzSong: MusicItem {
    let asset: AudioAsset
    let persistentID: UInt64
    var title: String { "Song \(persistentID)" }
    var artist: String? { "Fuzz" }
    var albumTitle: String? { "Album" }
    let playbackDuration: MediaTime

    static func == (a: FuzzSong, b: FuzzSong) -> Bool { a.persistentID == b.persistentID }
    func hash(into hasher: inout Hasher) { hasher.combine(persistentID) }
}

/// Reads the fuzz bytes as a sequence of choices; zeros once they run out.
struct FuzzBytes {
    var bytes: UnsafeBufferPointer<UInt8>
    var offset = 0
    var isEmpty: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { offset += 1 }
        return offset < bytes.count ? bytes[offset] : 0
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) -> T {
        var value: T = 0
        for _ in 0..<(T.bitWidth / 8) { value = value << 8 | T(truncatingIfNeeded: byte()) }
        return value
    }

    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(byte()) % choices.count] }

    mutating func string() -> String {
        let length = Int(byte() % 24)
        var raw: [UInt8] = []
        for _ in 0..<length { raw.append(byte()) }
        return String(decoding: raw, as: UTF8.self)
    }
}

enum MPRISFuzzer {
    static let interfaces = [
        DBusNames.properties, DBusNames.mprisRoot, DBusNames.mprisPlayer, DBusNames.mprisTrackList, "",
    ]
    static let members = [
        "Get", "GetAll", "Set", "Play", "Pause", "PlayPause", "Stop", "Next", "Previous", "Seek", "SetPosition",
        "OpenUri", "Raise", "Quit",
    ]
    static let names = [
        DBusNames.mprisPlayer, DBusNames.mprisRoot, "LoopStatus", "Shuffle", "Volume", "Position", "Rate",
        "PlaybackStatus", "Metadata", "Identity", "None", "Track", "Playlist",
    ]
    static let doubles: [Double] = [.nan, .infinity, -.infinity, -0.0, 1e300, -1e300, .ulpOfOne, 0.5, 2]
    static let int64s: [Int64] = [.min, .max, -1, 0, 1_000_000, -1_000_000, 1 << 62]

    static let songs: [FuzzSong] = {
        guard let folder = makeFuzzFolder("mpris") else { return [] }
        return (1...2).compactMap { n in
            let url = folder.appendingPathComponent("song\(n).wav")
            let frames = 12_000 * n
            guard
                let writer = try? SoundFileWriter(
                    url: url, type: .wavFloat, sampleRate: 48_000, channelCount: 2, overwrite: true),
                (try? writer.write([Float](repeating: Float(n) / 10, count: frames * 2)[...])) != nil,
                (try? writer.finish()) != nil
            else { return nil }
            return FuzzSong(
                asset: AudioAsset(url: url), persistentID: UInt64(n),
                playbackDuration: MediaTime(frames: Int64(frames), sampleRate: 48_000))
        }
    }()

    static func value(_ input: inout FuzzBytes, depth: Int = 0) -> DBusValue {
        let kinds = depth < 3 ? 17 : 13
        switch Int(input.byte()) % kinds {
        case 0: return .byte(input.byte())
        case 1: return .bool(input.byte() & 1 == 1)
        case 2: return .int16(input.integer(Int16.self))
        case 3: return .uint16(input.integer(UInt16.self))
        case 4: return .int32(input.integer(Int32.self))
        case 5: return .uint32(input.integer(UInt32.self))
        case 6: return .int64(input.byte() & 1 == 0 ? input.pick(int64s) : input.integer(Int64.self))
        case 7: return .uint64(input.integer(UInt64.self))
        case 8:
            return .double(input.byte() & 1 == 0 ? input.pick(doubles) : Double(bitPattern: input.integer(UInt64.self)))
        case 9: return .string(input.byte() & 1 == 0 ? input.pick(names) : input.string())
        case 10: return .objectPath(input.string())
        case 11: return .signature(input.string())
        case 12: return .unsupported(Int32(input.byte()))
        case 13:
            let count = Int(input.byte() % 4)
            return .array(element: "v", (0..<count).map { _ in .variant(value(&input, depth: depth + 1)) })
        case 14: return .dictEntry(value(&input, depth: depth + 1), value(&input, depth: depth + 1))
        case 15:
            let count = Int(input.byte() % 4)
            return .structure((0..<count).map { _ in value(&input, depth: depth + 1) })
        default: return .variant(value(&input, depth: depth + 1))
        }
    }

    static func call(_ input: inout FuzzBytes) -> DBusMessage {
        let interface = input.byte() % 8 == 7 ? input.string() : input.pick(interfaces)
        let member = input.byte() % 8 == 7 ? input.string() : input.pick(members)
        let count = Int(input.byte() % 5)
        let body = (0..<count).map { _ in value(&input) }
        return DBusMessage(
            kind: .methodCall, path: DBusNames.mprisPath, interface: interface.isEmpty ? nil : interface,
            member: member, body: body)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMPRISDispatch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, !MPRISFuzzer.songs.isEmpty,
        let engine = try? AudioEngine(output: .offline(sampleRate: 48_000, channels: 2))
    else { return 0 }
    defer { engine.shutdown() }
    guard let player = try? MusicPlayer.application(for: engine),
        let adapter = try? MusicPlayer.MPRISAdapter(player: player)
    else { return 0 }
    defer { adapter.close() }
    player.setQueue(items: MPRISFuzzer.songs)
    let dispatch = MPRISDispatch(identity: "Fuzz", player: adapter)
    var input = FuzzBytes(bytes: UnsafeBufferPointer(start: data, count: size))
    var calls = 0
    while !input.isEmpty, calls < 64 {
        _ = dispatch.answer(MPRISFuzzer.call(&input))
        calls += 1
        if input.byte() % 4 == 0 {
            adapter.flush()
            _ = try? engine.render(frames: 2_048)
        }
    }
    adapter.flush()
    _ = try? engine.render(frames: 4_096)
    _ = dispatch.answer(
        DBusMessage(
            kind: .methodCall, path: DBusNames.mprisPath, interface: DBusNames.properties, member: "GetAll",
            body: [.string(DBusNames.mprisPlayer)]))
    return 0
}

runLibFuzzer { data, size in fuzzMPRISDispatch(data, size) }
