#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An error from Backbeat: what went wrong, during which operation, on which file, and why.
///
/// Match on ``code``; the other fields are context for people. New codes can be
/// added without breaking callers, since ``Code`` is a struct, not an enum.
public struct BackbeatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        package let name: String
        package init(_ name: String) { self.name = name }
        public var description: String { name }
    }

    /// The kind of failure.
    public let code: Code
    /// The operation that failed, such as `alcOpenDevice` or `open`.
    public let operation: String
    /// The file involved, when there is one.
    public let url: URL?
    /// The underlying reason, often a C library's message.
    public let reason: String?

    package init(_ code: Code, operation: String, url: URL? = nil, reason: String? = nil) {
        self.code = code
        self.operation = operation
        self.url = url
        self.reason = reason
    }

    /// One line: `path: operation: code (reason)`. An archive entry's path
    /// is written as the command line takes it, `ARCHIVE:ENTRY`.
    public var description: String {
        var line = ""
        if let url {
            line += url.isFileURL || url.scheme == "zip" ? url.path : url.absoluteString
            line += ": "
        }
        line += "\(operation): \(code)"
        if let reason, !reason.isEmpty { line += " (\(reason))" }
        return line
    }
}

extension BackbeatError: LocalizedError {
    public var errorDescription: String? { description }
}

extension BackbeatError.Code {
    /// An OpenAL call reported an error.
    public static let openAL = Self("OpenAL error")
    /// The requested output device could not be opened.
    public static let deviceUnavailable = Self("output device unavailable")
    /// No capture device could be opened (no sound server, no capture card, or no device by that name).
    public static let captureUnavailable = Self("capture device unavailable")
    /// The output format (sample rate, channels) is not supported.
    public static let unsupportedFormat = Self("unsupported output format")
    /// An argument was out of range or malformed.
    public static let invalidArgument = Self("invalid argument")
    /// A reverb preset name that is not one of `efx-presets.h`'s 113.
    public static let unknownReverbPreset = Self("unknown reverb preset")
    /// The engine was used after ``AudioEngine/shutdown()``.
    public static let engineShutDown = Self("engine is shut down")
    /// The operation does not apply to this engine's output.
    public static let wrongOutput = Self("not available for this output")
    /// A file could not be written.
    public static let writeFailed = Self("write failed")
    /// The file exists and overwriting was not asked for.
    public static let fileExists = Self("file exists")
}
