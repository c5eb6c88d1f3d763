// libFuzzer entry: arbitrary bytes opened as a zip archive, and each entry decoded (see FuzzSupport).
import CLibFuzzer
import Foundation
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArchive(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    exerciseArchive(data, size)
}

// Whichever main the link keeps (SwiftPM's renamed entry point or
// libFuzzer's), the driver runs the function above.
var argc = CommandLine.argc
var argv = Optional(CommandLine.unsafeArgv)
exit(
    LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data else { return 0 }
        return fuzzArchive(data, size)
    })
