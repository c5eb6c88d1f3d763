/// One measured figure.
public struct Figure: Sendable {
    /// The stable key within its suite, such as `ratio_64`.
    public let key: String
    /// The measured value.
    public let value: Double
    /// Unit and meaning for the table, such as `× raw OpenAL`.
    public let unit: String

    /// A figure named `key` within its suite.
    public init(key: String, value: Double, unit: String) {
        self.key = key
        self.value = value
        self.unit = unit
    }
}
