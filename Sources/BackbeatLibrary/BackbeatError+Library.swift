import BackbeatSupport

extension BackbeatError.Code {
    /// The library index could not be opened, read or written.
    public static let indexFailed = Self("library index failed")
    /// Another program (a second game instance, `backbeat library scan`) held
    /// the index for longer than the busy timeout. Nothing was changed; try again.
    public static let indexBusy = Self("library index is busy")
    /// The index file or its directory cannot be written.
    public static let indexReadOnly = Self("library index is read-only")
    /// The disk holding the index is full.
    public static let indexFull = Self("library index disk is full")
    /// The index was written by a newer Backbeat; it is left as it is.
    public static let indexNewerVersion = Self("library index is from a newer version")
    /// The file at the index location is another program's SQLite database; it is left as it is.
    public static let indexForeign = Self("not a Backbeat library index")
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
