import CLibFuzzer
import Foundation

// libFuzzer entry: Vorbis comments (`KEY=value`, one per line of the input) to tags.
@testable import BackbeatMedia

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVorbisComments(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let comments = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
    let reading = VorbisComments.read(comments)
    _ = VorbisComments.comments(for: reading.tags)
    return 0
}

// Whichever main the link keeps (SwiftPM's renamed entry point or
// libFuzzer's), the driver runs the function above.
var argc = CommandLine.argc
var argv = Optional(CommandLine.unsafeArgv)
exit(
    LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data else { return 0 }
        return fuzzVorbisComments(data, size)
    })
