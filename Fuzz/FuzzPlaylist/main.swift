import CLibFuzzer
import Foundation

// libFuzzer entry: the same bytes as an M3U, a PLS and an XSPF playlist.
@testable import BackbeatLibrary

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlaylist(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    let text = PlaylistReader.text(bytes)
    _ = PlaylistReader.parseM3U(text)
    _ = PlaylistReader.parsePLS(text)
    _ = try? PlaylistReader.parseXSPF(bytes, url: URL(fileURLWithPath: "/fuzz/input.xspf"))
    return 0
}

// Whichever main the link keeps (SwiftPM's renamed entry point or
// libFuzzer's), the driver runs the function above.
var argc = CommandLine.argc
var argv = Optional(CommandLine.unsafeArgv)
exit(
    LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data else { return 0 }
        return fuzzPlaylist(data, size)
    })
