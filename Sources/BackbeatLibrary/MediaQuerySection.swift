/// An alphabetical section of a query's items or collections, for a picker's index.
public struct MediaQuerySection: Hashable, Sendable {
    /// The section's title: an uppercase letter, or `#` for names that start otherwise.
    public let title: String
    /// The indices of the section's items (or collections) in the query's results.
    public let range: Range<Int>
}
