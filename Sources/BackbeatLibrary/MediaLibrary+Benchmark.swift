import BackbeatMedia
import Foundation
import GRDB

extension MediaLibrary {
    /// Fills the index with `count` synthetic items (`artists` artists, albums of
    /// `tracksPerAlbum` tracks), built exactly as the scanner builds rows, for the
    /// benchmark's 100,000-item queries. The paths name no files. Package-only.
    package func insertSyntheticItemsForBenchmark(count: Int, artists: Int, tracksPerAlbum: Int) throws {
        try index.write("insert synthetic items") { db in
            let insert = try db.makeStatement(sql: LibraryScanner.insertItemSQL)
            let genres = ["Rock", "Pop", "Jazz", "Électro", "Folk", "Hip-Hop", "Classical", "Soul"]
            for i in 0..<count {
                let album = i / tracksPerAlbum
                let artist = album % artists
                var metadata = ScannedMetadata()
                metadata.title = "Song \(i) Ça Va"
                metadata.artist = artist % 3 == 0 ? "The Artist \(artist)" : "Artist \(artist)"
                metadata.albumTitle = "Album \(album)"
                metadata.genre = genres[artist % genres.count]
                metadata.composer = "Composer \(artist % 97)"
                metadata.trackNumber = i % tracksPerAlbum + 1
                metadata.discNumber = 1
                metadata.duration = MediaTime(seconds: 180)
                var hasher = Hasher64()
                hasher.combine(UInt64(i))
                let file = LibraryScanner.FoundFile(
                    path: "/synthetic/\(artist)/\(album)/\(i).ogg", size: 1, mtime: 0, cover: nil)
                let extracted = LibraryScanner.Extracted(
                    file: file, id: hasher.value, metadata: metadata, embeddedArtworkSize: nil)
                try insert.execute(arguments: LibraryScanner.rowArguments(extracted))
            }
        }
    }
}

extension MediaLibrary {
    /// Marks every item as changed without changing any (as a rescan that
    /// found changes would), so the next query reads the index afresh: the
    /// benchmark's "first query after the index changed". Package-only.
    package func markItemsChangedForBenchmark() throws {
        try index.write("mark items changed") { _ in }
    }
}
