// libFuzzer entry: drum pad commands, each line of the input as stdin would give it.
import DrumpadCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDrumpadCommand(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? DrumpadCommand.parse(text)
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        _ = try? DrumpadCommand.parse(String(line))
    }
    return 0
}
