import BackbeatSupport

extension BackbeatError.Code {
    /// The library index could not be opened, read or written.
    public static let indexFailed = Self("library index failed")
    /// A persistent ID names nothing in this library.
    public static let unknownPersistentID = Self("unknown persistent ID")
    /// A query already has a predicate on this property.
    public static let duplicatePredicate = Self("second predicate on one property")
    /// The property cannot be used in a predicate.
    public static let nonFilterableProperty = Self("property is not filterable")
    /// A predicate's value has the wrong type for its property.
    public static let predicateTypeMismatch = Self("predicate value has the wrong type")
    /// A playlist file could not be parsed.
    public static let invalidPlaylist = Self("invalid playlist")
    /// An image could not be decoded or encoded.
    public static let invalidImage = Self("invalid image")
    /// Decoding an archive needs a library in the decoder's `userInfo`.
    public static let libraryMissing = Self("no library to decode against")
}
