import Foundation

/// Whether this test process runs under the thread sanitizer (`make
/// test-tsan` builds every target with it, the device scenes and the demo
/// included). It slows the engine's code several times over, so an update
/// thread can wake a period late on a loaded machine: millisecond timing on a
/// real-time device is not what that pass checks. It checks races; the plain
/// pass checks timing to the update period.
package let underThreadSanitizer = dlsym(nil, "__tsan_init") != nil

/// How far real-time scheduling may miss under the thread sanitizer, in
/// update periods: the bound a timing test widens to in that pass, so it
/// still checks that a sound is scheduled for its target (not a period or
/// more off), without asserting what the plain pass asserts exactly.
package let threadSanitizerTimingSlack = 4
