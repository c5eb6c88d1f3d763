import CLibFuzzer
// libFuzzer entry: drum pad commands, each line of the input as stdin would give it.
import DrumpadCore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDrumpadCommand(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? DrumpadCommand.parse(text)
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        _ = try? DrumpadCommand.parse(String(line))
    }
    return 0
}

// Whichever main the link keeps (SwiftPM's renamed entry point or
// libFuzzer's), the driver runs the function above.
var argc = CommandLine.argc
var argv = Optional(CommandLine.unsafeArgv)
exit(
    LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data else { return 0 }
        return fuzzDrumpadCommand(data, size)
    })
