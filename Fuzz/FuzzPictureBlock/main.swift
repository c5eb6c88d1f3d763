import CLibFuzzer
import Foundation

// libFuzzer entry: METADATA_BLOCK_PICTURE, raw (FLAC) and base64 (Vorbis comment).
@testable import BackbeatMedia

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPictureBlock(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    if case .success(let artwork) = PictureBlock.parse(bytes) {
        // What parses must serialise and parse back.
        _ = PictureBlock.parse(PictureBlock.serialise(artwork))
    }
    _ = PictureBlock.parseBase64(Array(bytes))
    return 0
}

// Whichever main the link keeps (SwiftPM's renamed entry point or
// libFuzzer's), the driver runs the function above.
var argc = CommandLine.argc
var argv = Optional(CommandLine.unsafeArgv)
exit(
    LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data else { return 0 }
        return fuzzPictureBlock(data, size)
    })
