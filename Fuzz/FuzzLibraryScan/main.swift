// libFuzzer entry: the media library's scanner over a folder of fuzzed files,
// then queries over what it indexed. The input is up to four files separated
// by the bytes FF 'N' 'X' 'T'; each file's first byte chooses its extension
// (audio, or a playlist naming the other files as track0.ogg, track1.wav…).
import Backbeat
import BackbeatLibrary
import Foundation
import FuzzDriver
import FuzzSupport

enum LibraryScanFuzzer {
    static let folder = makeFuzzFolder("library")
    static let extensions = fuzzedFileExtensions + ["m3u", "pls", "xspf"]
    static let separator: [UInt8] = [0xFF, 0x4E, 0x58, 0x54]

    static func files(_ bytes: UnsafeBufferPointer<UInt8>) -> [Slice<UnsafeBufferPointer<UInt8>>] {
        var files: [Slice<UnsafeBufferPointer<UInt8>>] = []
        var start = 0
        var i = 0
        while i + separator.count <= bytes.count, files.count < 3 {
            if bytes[i..<(i + separator.count)].elementsEqual(separator) {
                files.append(bytes[start..<i])
                i += separator.count
                start = i
            } else {
                i += 1
            }
        }
        files.append(bytes[start...])
        return files
    }

    static func query(_ library: MediaLibrary) {
        let songs = (try? MediaQuery.songs(in: library).items) ?? []
        for item in songs {
            _ = (item.title, item.artist, item.albumArtist, item.playbackDuration, item.loudness, item.releaseDate)
            for property in MediaItemProperty.all { _ = item.value(forProperty: property) }
            _ = try? item.artwork?.image(at: MediaItemArtwork.Size(width: 16, height: 16))
            _ = try? library.item(persistentID: item.persistentID)
        }
        _ = try? MediaQuery.albums(in: library).collections
        _ = try? MediaQuery.artists(in: library).collectionSections
        _ = try? MediaQuery.genres(in: library).itemSections
        for playlist in (try? MediaQuery.playlists(in: library).playlists) ?? [] { _ = playlist.items }
        if let title = songs.first?.title {
            var query = MediaQuery(library: library)
            if (try? query.addFilterPredicate(
                MediaPropertyPredicate(value: title, property: .title, comparison: .contains))) != nil
            {
                _ = try? query.items
            }
        }
        _ = try? library.itemCount()
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLibraryScan(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, let folder = LibraryScanFuzzer.folder else { return 0 }
    let files = LibraryScanFuzzer.files(UnsafeBufferPointer(start: data, count: size))
    var written: [URL] = []
    defer { for url in written { try? FileManager.default.removeItem(at: url) } }
    for (n, bytes) in files.enumerated() {
        guard
            let url = writeFuzzedFile(
                bytes, in: folder, name: "track\(n)", extensions: LibraryScanFuzzer.extensions)
        else { continue }
        written.append(url)
    }
    guard !written.isEmpty, let library = try? MediaLibrary(roots: [folder], index: .inMemory) else { return 0 }
    _ = try? library.scan()
    LibraryScanFuzzer.query(library)
    return 0
}

runLibFuzzer { data, size in fuzzLibraryScan(data, size) }
