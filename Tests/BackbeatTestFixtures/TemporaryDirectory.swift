// swift-format-ignore-file: AmbiguousTrailingClosureOverload
// The sync and async helpers share a name, so the 77 call sites read alike;
// Swift picks the overload by the closure's effects.

import BackbeatSupport
import Foundation

/// A temporary directory removed when `body` returns.
package func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("backbeat-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}

/// Async variant of the temporary directory helper.
package func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("backbeat-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// An async temporary directory helper under its own name, for closures
/// whose async-ness the compiler cannot infer.
package func withTemporaryDirectoryAsync<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("backbeat-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try await body(url)
}

/// A Sendable list of completion results (`true`: played to the end).
package final class Tally: @unchecked Sendable {
    // @unchecked: `values` is only touched under `lock`.
    private let lock = Lock()
    private var values: [Bool] = []
    package init() {}
    package func record(_ value: Bool) { lock.withLock { values.append(value) } }
    package var all: [Bool] { lock.withLock { values } }
}
