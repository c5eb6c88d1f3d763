// libFuzzer's driver, run from a fuzzer's main.swift. SwiftPM gives every
// executable its own entry point, so the fuzzers call the driver themselves
// instead of relying on libFuzzer's main.
import CLibFuzzer

#if canImport(Glibc)
import Glibc
#endif

/// Runs libFuzzer with the process's arguments, feeding `testOneInput`, and exits with its status.
public func runLibFuzzer(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv = Optional(CommandLine.unsafeArgv)
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
}
