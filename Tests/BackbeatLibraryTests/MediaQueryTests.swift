import Backbeat
import BackbeatLibrary
import BackbeatTestFixtures
import Foundation
import Testing

@Suite struct MediaQueryTests {
    @Test func scanIndexesTheTaggedLibrary() throws {
        try withFixtureLibrary { library, root, _ in
            #expect(try library.itemCount() == 9)
            let item = try #require(try MediaQuery.songs(in: library).items.first { $0.title == "Come Together" })
            #expect(item.artist == "The Beatles")
            #expect(item.albumTitle == "Abbey Road")
            #expect(item.albumArtist == "The Beatles")
            #expect(item.genre == "Rock")
            #expect(item.composer == "Lennon-McCartney")
            #expect(item.albumTrackNumber == 1)
            #expect(item.discNumber == 1)
            #expect(abs(item.playbackDuration.seconds - 0.25) < 0.001)
            #expect(item.mediaType == .music)
            #expect(item.isCompilation == false)
            #expect(item.assetURL.path == root.appendingPathComponent("beatles/01 Come Together.ogg").path)
            let year = Calendar(identifier: .gregorian).dateComponents(
                in: TimeZone(identifier: "UTC")!, from: try #require(item.releaseDate)
            ).year
            #expect(year == 1969)
            #expect(item.value(forProperty: .title) as? String == "Come Together")
            #expect(item.value(forProperty: .albumTrackNumber) as? Int == 1)
            #expect(item.value(forProperty: .persistentID) as? UInt64 == item.persistentID)
            #expect(item.playCount == 0 && item.skipCount == 0 && item.lastPlayedDate == nil)
        }
    }

    @Test func bareQueryMatchesEverything() throws {
        try withFixtureLibrary { library, _, _ in
            let count = try MediaQuery(library: library).items.count
            #expect(count == 9)
        }
    }

    @Test func songsAreMusicInTitleOrderIgnoringArticles() throws {
        try withFixtureLibrary { library, _, _ in
            let titles = try MediaQuery.songs(in: library).items.map(\.title)
            // "An Apple" sorts as "Apple"; podcasts and audiobooks are not songs.
            #expect(titles == ["An Apple", "Because", "Come Together", "Déjà Vu", "Hit One", "Hit Two", "Something"])
        }
    }

    @Test func albumsGroupByAlbumWithItemsByDiscThenTrack() throws {
        try withFixtureLibrary { library, _, _ in
            let albums = try MediaQuery.albums(in: library).collections
            #expect(albums.map { $0.representativeItem?.albumTitle } == ["21", "Abbey Road", "B'Day", "Now Hits"])
            let abbey = albums[1]
            #expect(abbey.count == 3)
            #expect(abbey.items.map(\.title) == ["Come Together", "Something", "Because"])
            #expect(abbey.mediaTypes == .music)
            // A compilation is one album although its artists differ.
            #expect(albums[3].items.map(\.title) == ["Hit One", "Hit Two"])
        }
    }

    @Test func artistsAlbumArtistsGenresComposers() throws {
        try withFixtureLibrary { library, _, _ in
            let artists = try MediaQuery.artists(in: library).collections.map { $0.representativeItem!.artist! }
            // "The Beatles" sorts under B.
            #expect(artists == ["Adele", "Artist X", "Artist Y", "The Beatles", "Beyoncé"])
            let albumArtists = try MediaQuery.albumArtists(in: library).collections.map {
                $0.representativeItem!.albumArtist!
            }
            #expect(albumArtists == ["Adele", "The Beatles", "Beyoncé", "Various Artists"])
            let genres = try MediaQuery.genres(in: library).collections
            #expect(genres.map { $0.representativeItem!.genre! } == ["Pop", "R&B", "Rock"])
            #expect(genres.map(\.count) == [3, 1, 3])
            let composers = try MediaQuery.composers(in: library).collections.map {
                $0.representativeItem!.composer ?? "-"
            }
            #expect(composers == ["-", "Adele Adkins", "Beyoncé Knowles", "George Harrison", "Lennon-McCartney"])
        }
    }

    @Test func compilationsPodcastsAudiobooks() throws {
        try withFixtureLibrary { library, _, _ in
            let compilations = try MediaQuery.compilations(in: library).collections
            #expect(compilations.count == 1)
            #expect(compilations[0].items.map(\.title) == ["Hit One", "Hit Two"])
            let podcasts = try MediaQuery.podcasts(in: library).collections
            #expect(podcasts.map { $0.items.map(\.title) } == [["Episode 1"]])
            #expect(podcasts[0].mediaTypes == .podcast)
            let books = try MediaQuery.audiobooks(in: library).items
            #expect(books.map(\.title) == ["Chapter 1"])
            #expect(books[0].mediaType == .audiobook)
        }
    }

    @Test func playlistsAreReadFromM3UPLSAndXSPF() throws {
        try withTemporaryDirectory { directory in
            let root = directory.appendingPathComponent("music")
            try FileManager.default.createDirectory(
                at: root.appendingPathComponent("lists"), withIntermediateDirectories: true)
            try LibraryFixture.make(in: root)
            let library = try MediaLibrary(roots: [root], index: .inMemory)
            let report = try library.scan()
            #expect(report.playlists == 3)
            let playlists = try MediaQuery.playlists(in: library).playlists
            #expect(playlists.map(\.name) == ["mix", "Quiet", "Road Trip"])
            #expect(playlists[0].items.map(\.title) == ["Hit One", "Déjà Vu"])
            #expect(playlists[1].items.map(\.title) == ["Chapter 1", "Episode 1"])
            #expect(playlists[2].items.map(\.title) == ["Come Together", "An Apple"])
            #expect(playlists[2].attributes == [])
            let problems = report.playlistProblems.map(\.reason)
            #expect(problems.contains { $0.contains("gone.ogg") && $0.contains("missing file") })
            #expect(problems.contains { $0.contains("outside.ogg") && $0.contains("outside the library roots") })
            #expect(problems.contains { $0.contains("example.com") && $0.contains("not a local file") })
            #expect(problems.count == 3)
            #expect(try MediaQuery.playlists(in: library).collections.map(\.count) == [2, 2, 2])
        }
    }

    @Test func predicatesAreCaseAndDiacriticInsensitive() throws {
        try withFixtureLibrary { library, _, _ in
            var query = MediaQuery.songs(in: library)
            try query.addFilterPredicate(MediaPropertyPredicate(value: "BEYONCE", property: .artist))
            #expect(try query.items.map(\.title) == ["Déjà Vu"])

            var contains = MediaQuery(library: library)
            try contains.addFilterPredicate(
                MediaPropertyPredicate(value: "beat", property: .artist, comparison: .contains))
            #expect(try contains.items.count == 3)
            try contains.addFilterPredicate(MediaPropertyPredicate(value: 2, property: .discNumber))
            #expect(try contains.items.map(\.title) == ["Because"])

            let set: Set = [
                MediaPropertyPredicate(value: "abbey road", property: .albumTitle),
                MediaPropertyPredicate(value: "deja", property: .title, comparison: .contains),
            ]
            #expect(try MediaQuery(library: library, filterPredicates: set).items.isEmpty)
            let compilation = try MediaQuery(
                library: library, filterPredicates: [MediaPropertyPredicate(value: true, property: .isCompilation)])
            #expect(try compilation.items.count == 2)
            let byGenre = try MediaQuery(
                library: library, filterPredicates: [MediaPropertyPredicate(value: "pop", property: .genre)])
            #expect(try byGenre.items.count == 3)
            let id = try query.items[0].persistentID
            let byID = try MediaQuery(
                library: library, filterPredicates: [MediaPropertyPredicate(value: id, property: .persistentID)])
            #expect(try byID.items.map(\.title) == ["Déjà Vu"])
        }
    }

    @Test func twoPredicatesOnOnePropertyIsATypedError() throws {
        try withFixtureLibrary { library, _, _ in
            var query = MediaQuery.songs(in: library)
            try query.addFilterPredicate(MediaPropertyPredicate(value: "Adele", property: .artist))
            let error = #expect(throws: BackbeatError.self) {
                try query.addFilterPredicate(MediaPropertyPredicate(value: "Beyoncé", property: .artist))
            }
            #expect(error?.code == .duplicatePredicate)
            // The songs query already filters on the media type.
            #expect(throws: BackbeatError.self) {
                try query.addFilterPredicate(MediaPropertyPredicate(value: .podcast))
            }
            let set: Set = [
                MediaPropertyPredicate(value: "a", property: .genre),
                MediaPropertyPredicate(value: "b", property: .genre),
            ]
            #expect((try? MediaQuery(library: library, filterPredicates: set)) == nil)
            #expect(try query.items.map(\.title) == ["An Apple"])
        }
    }

    @Test func nonFilterablePropertiesAndWrongValueTypesAreTypedErrors() throws {
        try withFixtureLibrary { library, _, _ in
            var query = MediaQuery(library: library)
            for property in [MediaItemProperty.playCount, .lastPlayedDate, .playbackDuration, .assetURL, .artwork] {
                #expect(!MediaItem.canFilter(by: property))
                let error = #expect(throws: BackbeatError.self) {
                    try query.addFilterPredicate(MediaPropertyPredicate(value: 1, property: property))
                }
                #expect(error?.code == .nonFilterableProperty)
            }
            #expect(MediaItem.canFilter(by: .artist) && MediaItem.canFilter(by: .persistentID))
            let mismatch = #expect(throws: BackbeatError.self) {
                try query.addFilterPredicate(MediaPropertyPredicate(value: "x", property: .discNumber))
            }
            #expect(mismatch?.code == .predicateTypeMismatch)
            #expect(throws: BackbeatError.self) {
                try query.addFilterPredicate(
                    MediaPropertyPredicate(value: 3, property: .albumTrackNumber, comparison: .contains))
            }
            #expect(query.filterPredicates.isEmpty)
        }
    }

    @Test func itemSectionsAreAlphabetical() throws {
        try withFixtureLibrary { library, _, _ in
            let sections = try MediaQuery.songs(in: library).itemSections
            #expect(sections.map(\.title) == ["A", "B", "C", "D", "H", "S"])
            #expect(sections.map(\.range) == [0..<1, 1..<2, 2..<3, 3..<4, 4..<6, 6..<7])
            let albumSections = try MediaQuery.albums(in: library).collectionSections
            #expect(albumSections.map(\.title) == ["#", "A", "B", "N"])
        }
    }
}
