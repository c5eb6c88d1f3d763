import BackbeatSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An audio file whose properties load asynchronously, like `AVURLAsset`.
///
/// Ogg Vorbis opens through vorbisfile; WAV, AIFF, CAF, FLAC, MP3 and Ogg
/// Opus through libsndfile. Loading opens the file once and caches what it
/// learned; a failure (missing, damaged or unsupported file) is thrown as a
/// ``BackbeatError`` naming the file and the reason, every time it is asked.
///
/// ```swift
/// let asset = AudioAsset(url: url)
/// let (duration, tags) = try await asset.load(.duration, .tags)
/// ```
public final class AudioAsset: Sendable {
    /// The file; for bytes from memory or another source, the name errors
    /// give them (`memory:///NAME`, `source:///NAME`, `zip:///ARCHIVE:ENTRY`).
    public let url: URL
    /// Where the bytes come from when they are not the file at `url`.
    private let byteSource: (any AudioByteSource)?
    /// Loop points set through the API; they replace the file's tags. Nil: the tags' (if any).
    public let explicitLoopPoints: LoopPoints?
    /// How many times a player plays the loop region, when the asset has one
    /// (``Looping/forever`` by default: a level's music loops until stopped).
    public let looping: Looping
    private let cache = LockedValueBox<Result<Details, BackbeatError>?>(nil)

    /// Creates an asset for a file; nothing is read until a property is loaded.
    ///
    /// - Parameters:
    ///   - loopPoints: a loop region that replaces the file's `LOOPSTART` tags; nil keeps them.
    ///   - looping: how many times a music player plays the loop region (``Looping/once``: straight through).
    public init(url: URL, loopPoints: LoopPoints? = nil, looping: Looping = .forever) {
        self.url = url
        self.explicitLoopPoints = loopPoints
        self.looping = looping
        byteSource = nil
        archiveEntry = nil
    }

    /// Creates an asset from encoded bytes in memory (a whole Ogg, FLAC, WAV… file).
    ///
    /// - Parameters:
    ///   - data: the file's bytes; the asset keeps them (no copy is made).
    ///   - name: what errors and descriptions call it, such as `theme.ogg`.
    ///   - loopPoints: a loop region that replaces the file's `LOOPSTART` tags; nil keeps them.
    ///   - looping: how many times a music player plays the loop region.
    public convenience init(
        data: Data, name: String = "memory", loopPoints: LoopPoints? = nil, looping: Looping = .forever
    ) {
        self.init(
            source: data, url: Self.url(scheme: "memory", name: name), loopPoints: loopPoints, looping: looping)
    }

    /// Creates an asset that reads its encoded bytes from `source`, a piece at
    /// a time: players stream from it, nothing copies it whole.
    ///
    /// - Parameters:
    ///   - source: the bytes, read from any thread (see ``AudioByteSource``).
    ///   - name: what errors and descriptions call it, such as `music/theme.ogg`.
    ///   - loopPoints: a loop region that replaces the file's `LOOPSTART` tags; nil keeps them.
    ///   - looping: how many times a music player plays the loop region.
    public convenience init(
        source: any AudioByteSource, name: String, loopPoints: LoopPoints? = nil, looping: Looping = .forever
    ) {
        self.init(
            source: source, url: Self.url(scheme: "source", name: name), loopPoints: loopPoints, looping: looping)
    }

    /// Creates an asset that reads from `source` and is named by `url`;
    /// `archiveEntry` says which archive entry the bytes are, for an asset
    /// of ``AudioArchive``.
    package init(
        source: any AudioByteSource, url: URL, loopPoints: LoopPoints? = nil, looping: Looping = .forever,
        archiveEntry: AudioAsset.ArchiveEntryLocation? = nil
    ) {
        self.url = url
        self.explicitLoopPoints = loopPoints
        self.looping = looping
        byteSource = source
        self.archiveEntry = archiveEntry
    }

    /// The archive file and the path inside it, for an entry of an ``AudioArchive``; nil otherwise.
    package let archiveEntry: ArchiveEntryLocation?

    /// Whether the asset's bytes are at ``url`` itself (not in memory, an archive entry or a game's source).
    package var readsURL: Bool { byteSource == nil }

    /// The checked reader every decoder of this asset reads through.
    package func byteSourceReader() throws -> ByteSourceReader {
        if let byteSource { return try ByteSourceReader(source: byteSource, url: url) }
        return try ByteSourceReader(source: AudioFileSource(url: url), url: url)
    }

    /// A URL naming bytes that are not a file: `scheme:///name`, percent-encoded.
    package static func url(scheme: String, name: String) -> URL {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/:".utf8)
        var path = ""
        for byte in name.utf8 {
            if allowed.contains(byte) {
                path.append(Character(Unicode.Scalar(byte)))
            } else {
                path += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        if !path.hasPrefix("/") { path = "/" + path }
        return URL(string: "\(scheme)://\(path)") ?? URL(string: "\(scheme):///")!
    }

    /// The archive file and the path inside it that an archive entry's asset reads.
    package struct ArchiveEntryLocation: Sendable, Equatable {
        package let archive: URL
        package let path: String
    }

    /// A property that can be loaded, such as ``Property/duration``.
    public struct Property<Value: Sendable>: Sendable {
        let name: String
        let get: @Sendable (Details) throws -> Value
    }

    /// Loads one property.
    ///
    /// - Parameter property: The property, such as ``Property/duration``.
    /// - Returns: Its value.
    /// - Throws: ``BackbeatError`` if the file cannot be opened or, for `.tags`, carries a corrupt picture.
    public func load<A>(_ property: Property<A>) async throws -> A {
        try property.get(details())
    }

    /// Loads two properties.
    ///
    /// - Parameters:
    ///   - a: The first property.
    ///   - b: The second property.
    /// - Returns: Their values, in order, read from one opening of the file.
    /// - Throws: as ``load(_:)``.
    public func load<A, B>(_ a: Property<A>, _ b: Property<B>) async throws -> (A, B) {
        let d = try details()
        return (try a.get(d), try b.get(d))
    }

    /// Loads three properties.
    ///
    /// - Parameters:
    ///   - a: The first property.
    ///   - b: The second property.
    ///   - c: The third property.
    /// - Returns: Their values, in order, read from one opening of the file.
    /// - Throws: as ``load(_:)``.
    public func load<A, B, C>(_ a: Property<A>, _ b: Property<B>, _ c: Property<C>) async throws -> (A, B, C) {
        let d = try details()
        return (try a.get(d), try b.get(d), try c.get(d))
    }

    /// What opening the file taught us.
    struct Details: Sendable {
        let url: URL
        let container: String
        let codec: String
        let format: AudioFormat
        let frameCount: Int64
        let fileSize: Int64
        let tags: VorbisComments.Reading
        var explicitLoopPoints: LoopPoints?

        var duration: MediaTime { MediaTime(frames: frameCount, sampleRate: format.sampleRate) }

        func checkedTags() throws -> AudioTags {
            if let reason = tags.artworkErrors.first {
                throw BackbeatError(.corruptArtwork, operation: "read tags", url: url, reason: reason)
            }
            return tags.tags
        }
    }

    /// What a player schedules by, read now (the file is opened once and cached):
    /// the native format, the frame count, the tags and the loop points a
    /// player honours (as ``Property/loopPoints``).
    package func schedulingInfo() throws -> (
        format: AudioFormat, frameCount: Int64, tags: AudioTags, loopPoints: LoopPoints?
    ) {
        let d = try details()
        return (d.format, d.frameCount, d.tags.tags, try AudioAsset.Property<LoopPoints?>.loopPoints.get(d))
    }

    /// Opens the file once and caches the outcome.
    func details() throws -> Details {
        if let cached = cache.withLockedValue({ $0 }) { return try cached.get() }
        let result: Result<Details, BackbeatError>
        do {
            let reader = try byteSourceReader()
            let decoder = try AudioDecoders.open(reader)
            defer { decoder.close() }
            let size = reader.size
            result = .success(
                Details(
                    url: url, container: decoder.container, codec: decoder.codec,
                    format: decoder.nativeFormat, frameCount: decoder.frameCount,
                    fileSize: size, tags: decoder.readTags(), explicitLoopPoints: explicitLoopPoints))
        } catch let error as BackbeatError {
            result = .failure(error)
        } catch {
            result = .failure(BackbeatError(.readFailed, operation: "open", url: url, reason: "\(error)"))
        }
        cache.withLockedValue { $0 = result }
        return try result.get()
    }
}

extension AudioAsset.Property where Value == LoopPoints? {
    /// The loop region a player honours: the one set through the API, else the
    /// file's `LOOPSTART` tags; fitted to the file (an end past the file's end
    /// moves to the end; tags whose start is past the end are ignored).
    ///
    /// - Throws: ``BackbeatError/Code/invalidLoopPoints`` when loop points set through the API start past the end.
    public static var loopPoints: Self {
        .init(name: "loopPoints") { details in
            if let explicit = details.explicitLoopPoints {
                return try explicit.checked(frameCount: details.frameCount, url: details.url)
            }
            return details.tags.tags.loopPoints?.clamped(toFrameCount: details.frameCount)
        }
    }
}

extension AudioAsset.Property where Value == MediaTime {
    /// The length of the audio.
    public static var duration: Self { .init(name: "duration") { $0.duration } }
}

extension AudioAsset.Property where Value == Int {
    /// Frames per second.
    public static var sampleRate: Self { .init(name: "sampleRate") { $0.format.sampleRate } }
    /// Channels per frame.
    public static var channelCount: Self { .init(name: "channelCount") { $0.format.channelCount } }
}

extension AudioAsset.Property where Value == Int64 {
    /// The number of frames.
    public static var frameCount: Self { .init(name: "frameCount") { $0.frameCount } }
}

extension AudioAsset.Property where Value == String {
    /// The codec, such as `Vorbis`, `PCM 16-bit`, `FLAC 16-bit`, `MP3` or `Opus`.
    public static var codec: Self { .init(name: "codec") { $0.codec } }
    /// The container, such as `Ogg`, `WAV`, `AIFF`, `CAF`, `FLAC` or `MP3`.
    public static var containerFormat: Self { .init(name: "containerFormat") { $0.container } }
}

extension AudioAsset.Property where Value == AudioFormat {
    /// The file's native PCM format: its rate and channels, Int16 for
    /// integer files of 16 bits or fewer, else Float32; interleaved.
    public static var format: Self { .init(name: "format") { $0.format } }
}

extension AudioAsset.Property where Value == AudioTags {
    /// The file's tags. Throws `.corruptArtwork` if an embedded picture is malformed.
    public static var tags: Self { .init(name: "tags") { try $0.checkedTags() } }
}
