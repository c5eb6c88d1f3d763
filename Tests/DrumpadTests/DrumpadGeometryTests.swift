import Backbeat
import BackbeatTestFixtures
import BackbeatTesting
import DrumpadCore
import Foundation
import Testing

/// `geometry`, `door` and `listener` typed into the demo binary on stdin,
/// rendered to a file: what is printed, and what is heard.
@Suite struct DrumpadGeometryTests {
    /// Two rooms (a: x < 0, b: x > 0) and a concrete wall between them with
    /// a doorway at 3 ≤ z ≤ 4 (2 m high) and a wooden door in it.
    static let twoRooms = """
        # two rooms and a door
        o wall
        usemtl concrete
        v 0 0 -5
        v 0 0 3
        v 0 3 3
        v 0 3 -5
        v 0 0 4
        v 0 0 5
        v 0 3 5
        v 0 3 4
        v 0 2 3
        v 0 2 4
        f 1 2 3 4
        f 5 6 7 8
        f 9 10 8 3
        \(box("room:a", from: [-5, 0, -5], to: [0, 3, 5], first: 11))
        \(box("room:b", from: [0, 0, -5], to: [5, 3, 5], first: 19))
        o portal:door
        usemtl wood
        v 0 0 3
        v 0 0 4
        v 0 2 4
        v 0 2 3
        f 27 28 29 30
        """

    /// A box as OBJ lines, its vertices numbered from `first`.
    static func box(_ name: String, from low: SIMD3<Float>, to high: SIMD3<Float>, first: Int) -> String {
        var lines = ["o \(name)"]
        for i in 0..<8 {
            let x = i & 1 == 0 ? low.x : high.x
            let y = i & 2 == 0 ? low.y : high.y
            let z = i & 4 == 0 ? low.z : high.z
            lines.append("v \(x) \(y) \(z)")
        }
        for f in [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]] {
            lines.append("f " + f.map { String($0 + first) }.joined(separator: " "))
        }
        return lines.joined(separator: "\n")
    }

    @Test func geometryDoorAndListenerWorkAndBadInputIsOneLine() throws {
        // A snare behind the wall, the listener by the door: hit it with the
        // door closed (an OBJ's portals load open), then open. Each hit has a second of its own in the file.
        let input = """
            geometry missing.obj
            geometry level.obj
            door door close
            door cellar open
            door door nan
            listener 1 nan 2
            listener -1 1 3.5
            place snare 1.5 1 1
            map
            snare
            wait 1
            door door open
            snare
            wait 1
            door door 0.5
            geometry off
            quit

            """
        try withTemporaryDirectory { dir in
            try Data(Self.twoRooms.utf8).write(to: dir.appendingPathComponent("level.obj"))
            let wav = dir.appendingPathComponent("out.wav")
            let result = try DrumpadDemoTests.run(input: Data(input.utf8), arguments: ["--output", wav.path], in: dir)
            #expect(result.status == 0)
            let printed = result.stdout.split(separator: "\n").map(String.init)
            func lines(starting prefix: String) -> [String] { printed.filter { $0.hasPrefix(prefix) } }
            #expect(lines(starting: "geometry: ").count == 3, "\(lines(starting: "geometry"))")
            #expect(printed.contains("geometry: 30 triangles, 2 rooms, 1 portals"), "\(result.stdout)")
            #expect(printed.contains("geometry: off"))
            // The missing file and the unknown door are one line each; NaN is refused by the parser.
            #expect(lines(starting: "geometry: ").first?.contains("missing.obj") == true)
            #expect(lines(starting: "door cellar").isEmpty)
            #expect(lines(starting: "door: ").count == 2, "\(lines(starting: "door"))")
            #expect(result.stdout.contains("listener: at x -1 y 1 z 3.5 m in room a"))
            // `map` prints the level from above: walls, the closed door, the rooms, the listener, the snare.
            let map = printed.drop { !$0.hasPrefix("  level (from above") }.prefix(17).filter { $0.hasPrefix("    |") }
            #expect(map.count == 16, "\(result.stdout)")
            #expect(map.contains { $0.contains("#") } && map.contains { $0.contains("+") })
            #expect(map.contains { $0.contains("@") } && map.contains { $0.contains("1") })
            #expect(printed.contains("door door: closed"))
            #expect(printed.contains("door door: open"))
            #expect(printed.contains("door door: open 0.5"))
            let read = try Media.read(wav)
            let frames = 48_000
            let closed = DrumpadDemoTests.peak(read.floats[0..<(2 * frames)])
            let opened = DrumpadDemoTests.peak(read.floats[(2 * frames)..<(4 * frames)])
            #expect(closed > 0, "the closed door still lets a little through")
            #expect(20 * log10(opened / closed) >= 15, "closed \(closed), open \(opened)")
        }
    }

    @Test func theMapDrawsWallsDoorsAndRooms() throws {
        try withTemporaryDirectory { dir in
            let obj = dir.appendingPathComponent("level.obj")
            try Data(Self.twoRooms.utf8).write(to: obj)
            _ = try DrumpadDemoTests.render(music: false) { demo in
                #expect(demo.status.levelMap.isEmpty)
                demo.perform(line: "geometry \(obj.path)")
                demo.perform(line: "door door close")
                demo.perform(line: "listener -2 1 0")
                let closed = demo.status.levelMap
                let grid = closed.filter { $0.hasPrefix("    |") }
                #expect(grid.count == 16)
                #expect(grid.contains { $0.contains("#") }, "walls")
                #expect(grid.contains { $0.contains("+") } && !grid.contains { $0.contains("/") }, "a closed door")
                #expect(grid.contains { $0.contains("a") } && grid.contains { $0.contains("b") }, "two rooms")
                #expect(grid.contains { $0.contains("@") }, "the listener")
                #expect(closed.contains("    doors: door closed"))
                demo.perform(line: "door door open")
                let open = demo.status.levelMap.filter { $0.hasPrefix("    |") }
                #expect(open.contains { $0.contains("/") } && !open.contains { $0.contains("+") }, "an open door")
                // The screen shows it in place of the pads' map.
                let screen = DrumpadScreen.render(demo.status, now: .zero, typing: "", width: 100)
                #expect(screen.contains { $0.contains("level (from above") })
                demo.perform(line: "geometry off")
                #expect(demo.status.levelMap.isEmpty)
            }
        }
    }
}
