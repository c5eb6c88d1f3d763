import ArgumentParser
import Backbeat
import BackbeatLibrary
import Foundation

struct LibraryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "Scan folders into a media library index, query it, analyse loudness.",
        subcommands: [Scan.self, Query.self, Analyze.self])

    struct IndexOption: ParsableArguments {
        @Option(name: .long, help: "The index file (default: $XDG_DATA_HOME/backbeat/library.sqlite).")
        var index: String?

        var location: MediaLibrary.IndexLocation {
            index.map { .file(URL(fileURLWithPath: $0)) } ?? .defaultLocation
        }

        func open(roots: [URL] = []) throws -> MediaLibrary {
            let library = try MediaLibrary(roots: roots, index: location)
            if let warning = library.indexWarning { FileHandle.standardError.write(Data("warning: \(warning)\n".utf8)) }
            return library
        }
    }

    struct Scan: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Scan folders into the index; report added, changed, removed and skipped files.",
            discussion: "The folders given become the library: items indexed from other folders are removed.")

        @Argument(help: "Folders to scan.")
        var directories: [String]
        @OptionGroup var indexOption: IndexOption

        func validate() throws {
            if directories.isEmpty { throw ValidationError("give at least one folder to scan") }
        }

        func run() throws {
            let library = try indexOption.open(roots: directories.map { URL(fileURLWithPath: $0) })
            let report = try library.scan()
            print(
                "added \(report.added), changed \(report.changed), removed \(report.removed), unchanged \(report.unchanged), skipped \(report.skipped.count)"
            )
            print("playlists \(report.playlists)\(report.playlistsChanged ? " (changed)" : "")")
            for skipped in report.skipped { print("skipped: \(skipped)") }
            for problem in report.playlistProblems { print("playlist: \(problem)") }
            for warning in report.warnings { print("warning: \(warning)") }
        }
    }

    struct Query: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Query the index.",
            discussion: """
                Properties: \(MediaItemProperty.all.filter(\.isFilterable).map(\.name).joined(separator: ", ")).
                Text compares case- and diacritic-insensitively. Groupings: \(MediaGrouping.allCases.map(\.rawValue).joined(separator: ", ")).
                """)

        enum Kind: String, EnumerableFlag {
            case songs, albums, artists, albumArtists, genres, composers, compilations, playlists, podcasts, audiobooks
        }

        @OptionGroup var indexOption: IndexOption
        @Flag(exclusivity: .exclusive, help: "A factory query (default: everything, by title).")
        var kind: Kind?
        @Option(
            name: .customLong("where"),
            help: ArgumentHelp("Match PROPERTY equal to VALUE.", valueName: "PROPERTY=VALUE"))
        var equalTo: [String] = []
        @Option(help: ArgumentHelp("Match PROPERTY containing VALUE.", valueName: "PROPERTY=VALUE"))
        var contains: [String] = []
        @Option(help: "Group into collections by this property.")
        var group: String?
        @Flag(help: "Print JSON.")
        var json = false

        func run() throws {
            let library = try indexOption.open()
            var query: MediaQuery
            switch kind {
            case nil: query = MediaQuery(library: library)
            case .songs: query = .songs(in: library)
            case .albums: query = .albums(in: library)
            case .artists: query = .artists(in: library)
            case .albumArtists: query = .albumArtists(in: library)
            case .genres: query = .genres(in: library)
            case .composers: query = .composers(in: library)
            case .compilations: query = .compilations(in: library)
            case .playlists: query = .playlists(in: library)
            case .podcasts: query = .podcasts(in: library)
            case .audiobooks: query = .audiobooks(in: library)
            }
            for (text, comparison) in equalTo.map({ ($0, MediaPropertyPredicate.Comparison.equalTo) })
                + contains.map({ ($0, .contains) })
            {
                try query.addFilterPredicate(try Self.predicate(text, comparison))
            }
            let grouped = group != nil || (kind != nil && kind != .songs && kind != .audiobooks)
            if let group {
                let name = group == "albumTitle" ? "album" : group
                guard let grouping = MediaGrouping(rawValue: name) else {
                    throw ValidationError(
                        "unknown grouping \"\(group)\" (known: \(MediaGrouping.allCases.map(\.rawValue).joined(separator: ", ")))"
                    )
                }
                query.groupingType = grouping
            }
            if grouped {
                let collections = try query.collections
                if json { return try printJSON(collections.map(Self.collectionJSON)) }
                for collection in collections {
                    let first = collection.representativeItem
                    let name =
                        switch query.groupingType {
                        case .artist: first?.artist
                        case .albumArtist: first?.albumArtist
                        case .genre: first?.genre
                        case .composer: first?.composer
                        case .title: first?.title
                        default: first?.albumTitle
                        }
                    print("\(name ?? "Unknown") (\(collection.count))")
                    for item in collection.items { print("  " + Self.line(item)) }
                }
            } else {
                let items = try query.items
                if json { return try printJSON(items.map(Self.itemJSON)) }
                for item in items { print(Self.line(item)) }
            }
        }

        static func predicate(_ text: String, _ comparison: MediaPropertyPredicate.Comparison) throws
            -> MediaPropertyPredicate
        {
            guard let equals = text.firstIndex(of: "=") else {
                throw ValidationError("expected PROPERTY=VALUE, got \"\(text)\"")
            }
            let name = String(text[..<equals])
            let value = String(text[text.index(after: equals)...])
            guard let property = MediaItemProperty(name: name) else {
                throw ValidationError(
                    "unknown property \"\(name)\" (known: \(MediaItemProperty.all.map(\.name).joined(separator: ", ")))"
                )
            }
            switch property {
            case .albumTrackNumber, .discNumber, .playCount, .skipCount:
                guard let n = Int(value) else { throw ValidationError("\(name) needs a number, got \"\(value)\"") }
                return MediaPropertyPredicate(value: n, property: property, comparison: comparison)
            case .persistentID:
                guard let id = UInt64(value) ?? UInt64(value.replacingOccurrences(of: "0x", with: ""), radix: 16) else {
                    throw ValidationError("persistentID needs a number, got \"\(value)\"")
                }
                return MediaPropertyPredicate(value: id, property: property, comparison: comparison)
            case .isCompilation:
                guard
                    let flag = ["true": true, "1": true, "yes": true, "false": false, "0": false, "no": false][
                        value.lowercased()]
                else {
                    throw ValidationError("isCompilation needs true or false, got \"\(value)\"")
                }
                return MediaPropertyPredicate(value: flag, property: property, comparison: comparison)
            case .mediaType:
                guard
                    let type = ["music": MediaType.music, "podcast": .podcast, "audiobook": .audiobook][
                        value.lowercased()]
                else {
                    throw ValidationError("mediaType is music, podcast or audiobook, got \"\(value)\"")
                }
                return MediaPropertyPredicate(value: type, property: property, comparison: comparison)
            default:
                return MediaPropertyPredicate(value: value, property: property, comparison: comparison)
            }
        }

        static func line(_ item: MediaItem) -> String {
            var parts = [item.title, item.artist ?? "Unknown Artist", item.albumTitle ?? "Unknown Album"]
            if item.albumTrackNumber > 0 {
                parts[2] += " #\(item.discNumber > 0 ? "\(item.discNumber)-" : "")\(item.albumTrackNumber)"
            }
            return parts.joined(separator: " — ") + " (\(item.playbackDuration.formatted))"
        }

        static func itemJSON(_ item: MediaItem) -> [String: Any] {
            var object: [String: Any] = [
                "persistentID": NSNumber(value: item.persistentID), "title": item.title,
                "albumTrackNumber": item.albumTrackNumber,
                "discNumber": item.discNumber, "durationSeconds": item.playbackDuration.seconds,
                "path": item.assetURL.path,
                "mediaType": item.mediaType == .music ? "music" : item.mediaType == .podcast ? "podcast" : "audiobook",
                "isCompilation": item.isCompilation, "playCount": item.playCount, "skipCount": item.skipCount,
            ]
            object["artist"] = item.artist ?? NSNull()
            object["albumTitle"] = item.albumTitle ?? NSNull()
            object["albumArtist"] = item.albumArtist ?? NSNull()
            object["genre"] = item.genre ?? NSNull()
            object["composer"] = item.composer ?? NSNull()
            if let loudness = item.loudness {
                object["integratedLUFS"] = loudness.integratedLUFS
                object["truePeakDBTP"] = loudness.truePeakDBTP
            }
            if let artwork = item.artwork {
                object["artwork"] = ["width": artwork.bounds.width, "height": artwork.bounds.height]
            }
            return object
        }

        static func collectionJSON(_ collection: MediaItemCollection) -> [String: Any] {
            [
                "count": collection.count,
                "representativeItem": collection.representativeItem.map(itemJSON) ?? NSNull(),
                "items": collection.items.map(itemJSON),
            ]
        }

        private func printJSON(_ value: Any) throws {
            let data = try JSONSerialization.data(
                withJSONObject: value, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
        }
    }

    struct Analyze: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Measure EBU R128 loudness and true peak of every item not yet measured.")

        @OptionGroup var indexOption: IndexOption
        @Flag(help: "Measure every item again.")
        var all = false

        func run() throws {
            let library = try indexOption.open()
            let analysis = LoudnessAnalysis(library: library, reanalyze: all)
            let report = try analysis.run { completed, total in
                let width = 30
                let filled = total == 0 ? width : width * completed / total
                let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                FileHandle.standardError.write(Data("\r[\(bar)] \(completed)/\(total)".utf8))
            }
            FileHandle.standardError.write(Data("\n".utf8))
            print("analysed \(report.analyzed), failed \(report.failed.count)")
            for failure in report.failed { print("failed: \(failure)") }
        }
    }
}
