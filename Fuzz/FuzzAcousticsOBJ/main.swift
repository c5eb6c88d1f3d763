import BackbeatAcoustics
import CLibFuzzer
import Foundation

// libFuzzer entry: the bytes as an OBJ level; what reads is then validated
// and built into a scene (Embree included), and one path is cast through it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAcousticsOBJ(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let level = try? AcousticLevel(objBytes: bytes), let scene = try? AcousticScene(level: level) else {
        return 0
    }
    _ = scene.path(from: [0, 1, 0], to: [3, 1, 3], radius: 0.5)
    return 0
}

// Whichever main the link keeps (SwiftPM's renamed entry point or
// libFuzzer's), the driver runs the function above.
var argc = CommandLine.argc
var argv = Optional(CommandLine.unsafeArgv)
exit(
    LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data else { return 0 }
        return fuzzAcousticsOBJ(data, size)
    })
