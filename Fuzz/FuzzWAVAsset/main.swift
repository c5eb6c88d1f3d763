// libFuzzer entry: arbitrary bytes opened as a .wav asset (see FuzzSupport).
import CLibFuzzer
import Foundation
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWAVAsset(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    exerciseAsset(data, size, pathExtension: "wav")
}

// Whichever main the link keeps (SwiftPM's renamed entry point or
// libFuzzer's), the driver runs the function above.
var argc = CommandLine.argc
var argv = Optional(CommandLine.unsafeArgv)
exit(
    LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data else { return 0 }
        return fuzzWAVAsset(data, size)
    })
