// libFuzzer's custom mutator for the fuzzers that read Ogg: libFuzzer's own
// mutation, then every complete Ogg page's CRC recomputed in place, so a
// mutated page reaches the Vorbis and Opus decoders instead of being dropped
// by libogg's checksum test. One mutation in sixteen keeps its broken CRCs,
// so the checksum path itself is still exercised.
import CLibFuzzer
import FuzzSupport

@_cdecl("LLVMFuzzerCustomMutator")
public func oggCustomMutator(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: CUnsignedInt)
    -> Int
{
    let mutated = LLVMFuzzerMutate(data, size, maxSize)
    if seed % 16 != 0 {
        OggPages.repairAll(in: UnsafeMutableBufferPointer(start: data, count: mutated))
    }
    return mutated
}
