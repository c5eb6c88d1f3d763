/// The tag source the library uses. One place to swap it.
enum LibraryCodecs {
    static let source: any MediaMetadataSource = DecoderMetadataSource()
}
