import Backbeat
import BackbeatLibrary
import BackbeatTestFixtures
import Foundation
import Testing

@Suite struct MediaPickerTests {
    @Test func browsesByCategoryWithinTheMediaTypes() throws {
        try withFixtureLibrary { library, _, _ in
            let picker = MediaPicker(library: library, mediaTypes: .music)
            let albums = try picker.browse(.albums)
            #expect(albums.entries.map(\.title) == ["21", "Abbey Road", "B'Day", "Now Hits"])
            #expect(albums.entries[1].subtitle == "The Beatles")
            let songs = try picker.browse(.songs)
            #expect(songs.entries.count == 7)
            #expect(songs.sections.first?.title == "A")
            #expect(try picker.browse(.artists).entries.map(\.title).first == "Adele")
            #expect(try picker.browse(.genres).entries.map(\.title) == ["Pop", "R&B", "Rock"])
            let lists = try picker.browse(.playlists).entries
            #expect(lists.map(\.title) == ["mix", "Quiet", "Road Trip"])
            #expect(lists[1].items.isEmpty)  // audiobook and podcast are not music
            let spoken = MediaPicker(library: library, mediaTypes: [.podcast, .audiobook])
            #expect(try spoken.browse(.songs).entries.map(\.title) == ["Chapter 1", "Episode 1"])
        }
    }

    @Test func singleSelectionFinishesOnTheFirstPick() throws {
        try withFixtureLibrary { library, _, _ in
            let picker = MediaPicker(library: library)
            let songs = try picker.browse(.songs).entries
            picker.pick(songs[2].items)
            #expect(picker.result == .didPick(MediaItemCollection(items: songs[2].items)))
            picker.pick(songs[3].items)
            #expect(picker.selection == songs[2].items)
            #expect(picker.cancel() == .didPick(MediaItemCollection(items: songs[2].items)))
        }
    }

    @Test func multipleSelectionCollectsUntilDoneOrCancel() throws {
        try withFixtureLibrary { library, _, _ in
            let picker = MediaPicker(library: library, allowsPickingMultipleItems: true)
            let album = try picker.browse(.albums).entries[1]
            let song = try picker.browse(.songs).entries[0]
            picker.pick(album.items)
            picker.pick([album.items[0]])
            picker.pick(song.items)
            picker.unpick(album.items[1])
            #expect(picker.result == nil)
            #expect(picker.selection.map(\.title) == ["Come Together", "Because", "An Apple"])
            #expect(picker.done() == .didPick(MediaItemCollection(items: picker.selection)))

            let other = MediaPicker(library: library, allowsPickingMultipleItems: true)
            other.pick(song.items)
            #expect(other.cancel() == .didCancel)
            #expect(MediaPicker(library: library).done() == .didCancel)
        }
    }
}
