import Backbeat
import BackbeatDesktop
import BackbeatLibrary
import BackbeatTesting
import Foundation
import Testing

/// A generated, tagged library: Ogg Vorbis files written by ``AssetWriter``
/// with tags and artwork, a cover image beside one album, and playlists.
package enum LibraryFixture {
    package struct Track {
        var folder: String
        var file: String
        package var tags: AudioTags
        var frequency: Double
    }

    /// A red 64×32 PNG, encoded by the project's own image code.
    package static func redPNG(width: Int = 64, height: Int = 32) throws -> Data {
        var pixels = [UInt8]()
        for _ in 0..<(width * height) { pixels += [255, 0, 0, 255] }
        return try ArtworkImage(size: .init(width: width, height: height), rgba: pixels).pngData()
    }

    package static func bluePNG() throws -> Data {
        var pixels = [UInt8]()
        for _ in 0..<(40 * 40) { pixels += [0, 0, 255, 255] }
        return try ArtworkImage(size: .init(width: 40, height: 40), rgba: pixels).pngData()
    }

    package static func tracks() throws -> [Track] {
        let art = Artwork(data: try redPNG(), mimeType: "image/png", width: 64, height: 32)
        return [
            Track(
                folder: "beatles", file: "02 Something.ogg",
                tags: AudioTags(
                    title: "Something", artist: "The Beatles", albumTitle: "Abbey Road", genre: "Rock",
                    composer: "George Harrison", trackNumber: 2, discNumber: 1, date: "1969-09-26"), frequency: 300),
            Track(
                folder: "beatles", file: "01 Come Together.ogg",
                tags: AudioTags(
                    title: "Come Together", artist: "The Beatles", albumTitle: "Abbey Road", genre: "Rock",
                    composer: "Lennon-McCartney", trackNumber: 1, discNumber: 1, date: "1969", artwork: [art]),
                frequency: 320),
            Track(
                folder: "beatles", file: "disc2-01 Because.ogg",
                tags: AudioTags(
                    title: "Because", artist: "The Beatles", albumTitle: "Abbey Road", genre: "Rock",
                    composer: "Lennon-McCartney", trackNumber: 1, discNumber: 2), frequency: 340),
            Track(
                folder: "beyonce", file: "deja.ogg",
                tags: AudioTags(
                    title: "Déjà Vu", artist: "Beyoncé", albumTitle: "B'Day", genre: "R&B",
                    composer: "Beyoncé Knowles", trackNumber: 1), frequency: 360),
            Track(
                folder: "adele", file: "apple.ogg",
                tags: AudioTags(
                    title: "An Apple", artist: "Adele", albumTitle: "21", genre: "Pop",
                    composer: "Adele Adkins", trackNumber: 3), frequency: 380),
            Track(
                folder: "now", file: "hit1.ogg",
                tags: AudioTags(
                    title: "Hit One", artist: "Artist X", albumTitle: "Now Hits", albumArtist: "Various Artists",
                    genre: "Pop", trackNumber: 1, isCompilation: true), frequency: 400),
            Track(
                folder: "now", file: "hit2.ogg",
                tags: AudioTags(
                    title: "Hit Two", artist: "Artist Y", albumTitle: "Now Hits", albumArtist: "Various Artists",
                    genre: "Pop", trackNumber: 2, isCompilation: true), frequency: 420),
            Track(
                folder: "talk", file: "ep1.ogg",
                tags: AudioTags(title: "Episode 1", artist: "Host", albumTitle: "Game Talk", genre: "Podcast"),
                frequency: 440),
            Track(
                folder: "books", file: "ch1.ogg",
                tags: AudioTags(title: "Chapter 1", artist: "Narrator", albumTitle: "The Book", genre: "Audiobook"),
                frequency: 460),
        ]
    }

    /// Writes one tagged Ogg Vorbis file with the project's writer.
    package static func write(_ url: URL, tags: AudioTags, frequency: Double, seconds: Double = 0.25) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let writer = try AssetWriter(outputURL: url, fileType: .oggVorbis, overwrite: true)
        writer.metadata = tags
        let input = AssetWriterInput(outputSettings: AudioFormat(sampleRate: 22_050, channelCount: 1), quality: 0.1)
        try writer.add(input)
        try writer.startWriting()
        try input.append(
            TestSignal.sine(frequency: frequency, duration: MediaTime(seconds: seconds), sampleRate: 22_050))
        input.markAsFinished()
        try writer.finish()
    }

    /// Writes the whole library under `root`; returns the tracks' URLs by title.
    @discardableResult
    package static func make(in root: URL) throws -> [String: URL] {
        var urls: [String: URL] = [:]
        for track in try tracks() {
            let url = root.appendingPathComponent(track.folder).appendingPathComponent(track.file)
            try write(url, tags: track.tags, frequency: track.frequency)
            urls[track.tags.title!] = url
        }
        try bluePNG().write(to: root.appendingPathComponent("adele/cover.png"))
        try """
        #EXTM3U
        #PLAYLIST:Road Trip
        #EXTINF:1,The Beatles - Come Together
        ../beatles/01 Come Together.ogg
        ../adele/apple.ogg
        ../missing/gone.ogg
        ../../outside.ogg
        https://example.com/stream.ogg
        """.write(to: root.appendingPathComponent("lists/road.m3u8"), atomically: true, encoding: .utf8)
        try """
        [playlist]
        File2=\(root.path)/beyonce/deja.ogg
        File1=now/hit1.ogg
        NumberOfEntries=2
        """.write(to: root.appendingPathComponent("mix.pls"), atomically: true, encoding: .utf8)
        try """
        <?xml version="1.0" encoding="UTF-8"?>
        <playlist version="1" xmlns="http://xspf.org/ns/0/">
          <title>Quiet</title>
          <trackList>
            <track><location>file://\(root.path)/books/ch1.ogg</location></track>
            <track><location>talk/ep1.ogg</location></track>
          </trackList>
        </playlist>
        """.write(to: root.appendingPathComponent("quiet.xspf"), atomically: true, encoding: .utf8)
        return urls
    }
}

/// A temporary library root with the fixture written into it and an in-memory library over it.
package func withFixtureLibrary(
    index: MediaLibrary.IndexLocation = .inMemory,
    _ body: (MediaLibrary, URL, [String: URL]) throws -> Void
) throws {
    try withTemporaryDirectory { directory in
        let root = directory.appendingPathComponent("music")
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("lists"), withIntermediateDirectories: true)
        let urls = try LibraryFixture.make(in: root)
        let library = try MediaLibrary(roots: [root], index: index)
        try library.scan()
        return try body(library, root, urls)
    }
}
