/// One measured figure: a single value, or the median of per-round values
/// reported with its spread.
package struct Figure: Sendable {
    /// The stable key within its suite, such as `ratio_64`.
    package let key: String
    /// The measured value (the median of ``rounds`` when there are rounds).
    package let value: Double
    /// Unit and meaning for the table, such as `× raw OpenAL`.
    package let unit: String
    /// The value of each round, in the order measured (empty for a single measurement).
    package let rounds: [Double]

    /// A figure named `key` within its suite, measured once.
    package init(key: String, value: Double, unit: String) {
        self.key = key
        self.value = value
        self.unit = unit
        self.rounds = []
    }

    /// A figure named `key` measured once per round: its value is their median,
    /// and it is reported with `key_min` and `key_max` companions.
    package init(key: String, rounds: [Double], unit: String) {
        precondition(!rounds.isEmpty, "a figure over rounds needs at least one round")
        self.key = key
        self.value = median(rounds)
        self.unit = unit
        self.rounds = rounds
    }

    /// A figure named `key` whose value is worked out over all its rounds
    /// together (a ratio of sums, steadier than the median of the rounds'
    /// ratios when each round is noisy), reported with the rounds' `key_min`
    /// and `key_max`.
    package init(key: String, value: Double, rounds: [Double], unit: String) {
        precondition(!rounds.isEmpty, "a figure over rounds needs at least one round")
        self.key = key
        self.value = value
        self.unit = unit
        self.rounds = rounds
    }

    /// The smallest round's value (the value itself for a single measurement).
    package var minimum: Double { rounds.min() ?? value }
    /// The largest round's value (the value itself for a single measurement).
    package var maximum: Double { rounds.max() ?? value }

    /// The figure as reported: `key`, and for rounds `key_min` and `key_max`.
    package var reported: [(key: String, value: Double)] {
        rounds.isEmpty ? [(key, value)] : [(key, value), (key + "_min", minimum), (key + "_max", maximum)]
    }
}
