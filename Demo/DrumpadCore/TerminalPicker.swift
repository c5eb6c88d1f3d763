import Backbeat
import BackbeatLibrary

/// The media picker on a line-based terminal: the library's ``MediaPicker``
/// model, drawn as numbered lists and driven by the lines that follow `pick`.
///
///     pick> 1 playlists  2 artists  3 albums  4 songs  5 genres
///     a number opens a row (a song is picked), `all` picks every song listed,
///     `multi` allows several picks, `back`, `done`, `cancel`
struct TerminalPicker {
    enum Level {
        case categories
        case rows(MediaPicker.Category, [MediaPicker.Entry])
        case songs(title: String, items: [MediaItem], parent: MediaPicker.Category)
    }

    private(set) var picker: MediaPicker
    private(set) var level: Level = .categories
    let library: MediaLibrary

    init(library: MediaLibrary) {
        self.library = library
        picker = MediaPicker(library: library, mediaTypes: .music, allowsPickingMultipleItems: false)
    }

    static let categories: [MediaPicker.Category] = [.playlists, .artists, .albums, .songs, .genres]

    /// The lines showing the current level.
    func screen() -> [String] {
        switch level {
        case .categories:
            let mode =
                picker.allowsPickingMultipleItems
                ? "multiple selection (\(picker.selection.count) picked)" : "single selection"
            return [
                "pick: " + Self.categories.enumerated().map { "\($0 + 1) \($1.rawValue)" }.joined(separator: "  "),
                "pick: \(mode); a number browses; multi, done, cancel",
            ]
        case let .rows(category, entries):
            guard !entries.isEmpty else { return ["pick: no \(category.rawValue); back, cancel"] }
            return entries.enumerated().map { "pick: \($0 + 1) \($1.title) — \($1.subtitle)" }
                + ["pick: a number \(category == .songs ? "picks" : "opens"); back, done, cancel"]
        case let .songs(title, items, _):
            return ["pick: \(title)"]
                + items.enumerated().map { "pick: \($0 + 1) \($1.title) — \($1.artist ?? "Unknown Artist")" }
                + ["pick: a number picks a song, all picks them all; back, done, cancel"]
        }
    }

    /// Handles one line; returns lines to print and, when the picker finished, its result.
    mutating func handle(_ line: String) -> (lines: [String], result: MediaPicker.Result?) {
        let word = DrumpadCommand.asciiLowercased(
            line.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init) ?? "")
        switch word {
        case "": return (screen(), nil)
        case "cancel", "c", "quit": return (["pick: cancelled"], picker.cancel())
        case "done", "d":
            let result = picker.done()
            return (result == .didCancel ? ["pick: nothing picked, cancelled"] : [], result)
        case "back", "b":
            switch level {
            case .categories: break
            case .rows: level = .categories
            case let .songs(_, _, parent): open(parent)
            }
            return (screen(), nil)
        case "multi", "m":
            guard picker.selection.isEmpty else { return (["pick: already picking; done or cancel"], nil) }
            picker = MediaPicker(
                library: library, mediaTypes: .music, allowsPickingMultipleItems: !picker.allowsPickingMultipleItems)
            return (screen(), nil)
        case "all", "a":
            guard case let .songs(_, items, _) = level else { return (["pick: all works in a list of songs"], nil) }
            return pick(items)
        default:
            guard word.utf8.count <= 6, let number = Int(word), number >= 1 else {
                return (["pick: expected a number, back, done or cancel, got \"\(DrumpadCommand.excerpt(line))\""], nil)
            }
            switch level {
            case .categories:
                guard number <= Self.categories.count else { return (["pick: no category \(number)"], nil) }
                open(Self.categories[number - 1])
                return (screen(), nil)
            case let .rows(category, entries):
                guard number <= entries.count else { return (["pick: no row \(number)"], nil) }
                let entry = entries[number - 1]
                if category == .songs { return pick(entry.items) }
                level = .songs(title: entry.title, items: entry.items, parent: category)
                return (screen(), nil)
            case let .songs(_, items, _):
                guard number <= items.count else { return (["pick: no song \(number)"], nil) }
                return pick([items[number - 1]])
            }
        }
    }

    private mutating func open(_ category: MediaPicker.Category) {
        let entries = (try? picker.browse(category).entries) ?? []
        level = .rows(category, entries)
    }

    private mutating func pick(_ items: [MediaItem]) -> (lines: [String], result: MediaPicker.Result?) {
        picker.pick(items)
        if let result = picker.result { return ([], result) }
        return (["pick: \(picker.selection.count) picked; more, or done"], nil)
    }
}

extension Drumpad {
    /// `pick`: opens the picker; the following lines drive it until done or cancel.
    func openPicker() throws {
        guard let library else { throw DrumpadError("there is no music library") }
        let picker = TerminalPicker(library: library)
        self.picker = picker
        for line in picker.screen() { report(line) }
    }

    /// A line while the picker is open.
    func performPicker(_ line: String) {
        guard var current = picker else { return }
        let (lines, result) = current.handle(line)
        picker = result == nil ? current : nil
        for line in lines { report(line) }
        guard case let .didPick(collection)? = result else { return }
        report(
            "pick: \(collection.count == 1 ? "\"\(collection.items[0].title)\"" : "\(collection.count) songs") picked")
        do {
            let music = try availableMusic()
            try music.setQueue(collection.items)
            try music.play()
        } catch {
            report("pick: \(error)")
        }
    }
}
