import BackbeatEngine
import Foundation
import Testing

/// What a render waits for: loads counted on offline and fast-file outputs
/// only, ended once, and given up on after the limit.
@Suite("BackgroundLoads")
struct BackgroundLoadsTests {
    @Test("Offline and fast-file renders wait for loads; a device and a paced file count none")
    func outputsThatWait() {
        let file = URL(fileURLWithPath: "/tmp/never-written.wav")
        #expect(BackgroundLoads(for: .offline()).rendersWait)
        #expect(BackgroundLoads(for: .file(url: file, pacing: .asFastAsPossible)).rendersWait)
        for output: AudioEngine.Output in [.device(), .file(url: file, pacing: .realTime)] {
            let loads = BackgroundLoads(for: output)
            #expect(!loads.rendersWait && loads.begin() == nil && !loads.holdsRender)
        }
    }

    @Test("A load holds the render until it ends; ending it twice changes nothing")
    func beginAndEnd() throws {
        let loads = BackgroundLoads(for: .offline())
        #expect(!loads.holdsRender && loads.waitUntilIdle())
        let first = try #require(loads.begin())
        let second = try #require(loads.begin())
        #expect(loads.holdsRender)
        loads.end(first)
        #expect(loads.holdsRender)
        loads.end(second)
        loads.end(second)
        #expect(!loads.holdsRender && loads.waitUntilIdle())
    }

    @Test("A wait ends when another thread ends the load")
    func waitEndsWithTheLoad() throws {
        let loads = BackgroundLoads(for: .offline())
        let token = try #require(loads.begin())
        let thread = Thread { loads.end(token) }
        thread.start()
        #expect(loads.waitUntilIdle())
        #expect(!loads.holdsRender)
    }

    @Test("A load past the limit is given up on: later renders do not wait for it, new loads still count")
    func givesUpAfterTheLimit() throws {
        let loads = BackgroundLoads(for: .offline())
        loads.limit = .milliseconds(10)
        #expect(loads.limit == .milliseconds(10))
        let stuck = try #require(loads.begin())
        #expect(!loads.waitUntilIdle())
        #expect(!loads.holdsRender)
        let next = try #require(loads.begin())
        #expect(loads.holdsRender)
        loads.end(stuck)  // arrives late: counts for nothing
        #expect(loads.holdsRender)
        loads.end(next)
        #expect(!loads.holdsRender)
    }
}
