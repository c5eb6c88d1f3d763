/// The kinds of media an item can be, as an option set so queries and the
/// picker can ask for several at once.
///
/// Files carry no standard media-type tag, so the scanner derives it from the
/// genre: `Podcast` makes a podcast, `Audiobook` or `Audio Book` an audiobook,
/// anything else music.
public struct MediaType: OptionSet, Hashable, Sendable, Codable {
    public let rawValue: Int
    /// Creates a media type from its bits.
    ///
    /// - Parameter rawValue: The types' bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Songs.
    public static let music = MediaType(rawValue: 1 << 0)
    /// Podcast episodes.
    public static let podcast = MediaType(rawValue: 1 << 1)
    /// Audiobooks.
    public static let audiobook = MediaType(rawValue: 1 << 2)
    /// Any audio.
    public static let anyAudio: MediaType = [.music, .podcast, .audiobook]

    /// The type the scanner gives a file with this genre.
    static func derived(fromGenre genre: String?) -> MediaType {
        switch genre.map(TextFolding.fold) {
        case "podcast", "podcasts": .podcast
        case "audiobook", "audiobooks", "audio book", "audio books": .audiobook
        default: .music
        }
    }

    /// A name for output: `music`, `podcast`, `audiobook`, or a `+`-joined list.
    var name: String {
        var names: [String] = []
        if contains(.music) { names.append("music") }
        if contains(.podcast) { names.append("podcast") }
        if contains(.audiobook) { names.append("audiobook") }
        return names.joined(separator: "+")
    }
}
