import Foundation

/// A run's figures with where it ran: what `backbeat bench --json` prints and
/// `backbeat bench compare` reads.
///
/// The JSON is one object: `run` holds the ``BenchRun``; every other key is a
/// suite, holding its figures by key. A figure measured over rounds is there
/// three times: `key` (the median), `key_min` and `key_max`.
package struct BenchReport: Sendable {
    /// Where and when the run happened.
    package var run: BenchRun
    /// Reported values by suite, then by figure key (companions included).
    package var suites: [String: [String: Double]]

    /// A report of `results` (suite name and its figures) from `run`.
    package init(run: BenchRun, results: [(suite: String, figures: [Figure])]) {
        self.run = run
        var suites: [String: [String: Double]] = [:]
        for (suite, figures) in results {
            for figure in figures {
                for (key, value) in figure.reported { suites[suite, default: [:]][key] = value }
            }
        }
        self.suites = suites
    }

    /// Reads a report that `backbeat bench --json` wrote.
    ///
    /// - Throws: ``BenchError`` when `data` is not such a report.
    package init(json data: Data, name: String) throws {
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw BenchError("\(name): not a JSON object")
        }
        run = BenchRun(jsonObject: object["run"] as? [String: Any])
        var suites: [String: [String: Double]] = [:]
        for (suite, value) in object where suite != "run" {
            guard let figures = value as? [String: Any] else {
                throw BenchError("\(name): \"\(suite)\" is not an object of figures")
            }
            for (key, number) in figures {
                guard let number = number as? Double, number.isFinite else {
                    throw BenchError("\(name): \(suite).\(key) is not a finite number")
                }
                suites[suite, default: [:]][key] = number
            }
        }
        guard !suites.isEmpty else { throw BenchError("\(name): no suites") }
        self.suites = suites
    }

    /// The report as pretty-printed JSON with sorted keys.
    package func json() throws -> Data {
        var object: [String: Any] = suites
        object["run"] = run.jsonObject
        return try JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}
