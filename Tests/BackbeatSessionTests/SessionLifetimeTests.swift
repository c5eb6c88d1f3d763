import Backbeat
import Testing

@Suite struct SessionLifetimeTests {
    @Test func updateStreamsFinishWhenTheSessionGoes() async {
        var session: AudioSession? = AudioSession(clock: { .zero })
        let stream = session!.events()
        session?.post(.silentSwitch(on: true))
        session = nil
        var count = 0
        for await _ in stream { count += 1 }
        #expect(count == 1)
    }
}
