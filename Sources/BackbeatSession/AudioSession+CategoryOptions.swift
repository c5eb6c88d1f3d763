extension AudioSession {
    /// Refinements of a category. Both options are valid only with ``Category/playback``;
    /// ``Category/ambient`` always mixes and needs neither.
    public struct CategoryOptions: OptionSet, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: UInt8

        /// Creates options from their raw bits.
        ///
        /// - Parameter rawValue: The options' bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// Play mixed with other audio instead of asking it to stop.
        public static let mixWithOthers = CategoryOptions(rawValue: 1 << 0)
        /// Ask other audio to lower its level while the session is active. Implies mixing.
        public static let duckOthers = CategoryOptions(rawValue: 1 << 1)

        /// Every combination of the known options, for tables and tests.
        package static let allCombinations: [CategoryOptions] = [
            [], [.mixWithOthers], [.duckOthers], [.mixWithOthers, .duckOthers],
        ]

        public var description: String {
            var names: [String] = []
            if contains(.mixWithOthers) { names.append("mixWithOthers") }
            if contains(.duckOthers) { names.append("duckOthers") }
            return "[" + names.joined(separator: ", ") + "]"
        }
    }
}
