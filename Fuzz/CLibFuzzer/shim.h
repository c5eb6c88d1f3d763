// libFuzzer's driver, linked by -sanitize=fuzzer. SwiftPM gives every
// executable its own entry point, so each fuzzer's main.swift calls the
// driver itself instead of relying on libFuzzer's main.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

// libFuzzer's own mutation, for a custom mutator that post-processes its output.
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);
