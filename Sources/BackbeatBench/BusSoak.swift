import Backbeat
import BackbeatEngine
import BackbeatMedia

/// Bus traffic: fades on the effects bus and on a game-defined bus (every
/// curve), ducks of the effects bus released later, brief mutes and pauses.
package final class BusSoak: SoakParticipant {
    package let name = "buses"
    private var ducks: [Duck] = []
    private var group: Bus?
    private(set) var fades = 0
    private(set) var duckCount = 0
    private var nextFade = 0.0, nextDuck = 0.0, nextToggle = 0.0

    /// A bus load.
    package init() {}

    package func start(engine: AudioEngine) throws {
        group = engine.makeBus(named: "soak group", parent: engine.effectsBus)
    }

    package func tick(engine: AudioEngine, random: inout SeededRandom, second: Double) {
        if second >= nextFade {
            let bus = random.next(in: 0..<2) == 0 ? engine.effectsBus : (group ?? engine.effectsBus)
            let curves: [FadeCurve] = [.linear, .equalPower, .exponential]
            bus.fade(
                to: Float(0.3 + 0.7 * random.nextUnit()),
                duration: MediaTime(seconds: 0.2 + 2 * random.nextUnit(), preferredTimescale: 48_000),
                curve: curves[random.next(in: 0..<curves.count)])
            fades += 1
            nextFade = second + 0.5 + 2 * random.nextUnit()
        }
        if second >= nextDuck {
            if ducks.count < 3 {
                ducks.append(
                    engine.effectsBus.duck(
                        by: Float(-3 - 15 * random.nextUnit()),
                        attack: MediaTime(value: 1, timescale: 20),
                        release: MediaTime(value: 1, timescale: 4)))
                duckCount += 1
            } else {
                ducks.removeFirst().release()
            }
            nextDuck = second + 1 + 3 * random.nextUnit()
        }
        if second >= nextToggle, let group {
            // A short mute or pause of the group bus, undone on the next toggle.
            if group.isMuted || group.isPaused {
                group.isMuted = false
                group.isPaused = false
            } else if random.next(in: 0..<2) == 0 {
                group.isMuted = true
            } else {
                group.isPaused = true
            }
            nextToggle = second + 0.5 + random.nextUnit()
        }
    }

    package func finish(engine: AudioEngine) {
        for duck in ducks { duck.release() }
        ducks.removeAll()
        group?.isMuted = false
        group?.isPaused = false
        engine.effectsBus.volume = 1
        group = nil
    }

    package var underruns: Int { 0 }
    package var summary: String { "\(fades) fades, \(duckCount) ducks" }
}
