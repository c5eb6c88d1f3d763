import Backbeat
import BackbeatAcoustics
import Foundation

/// The level `geometry` loaded: the level as read (for the map), its scene,
/// and the simulation that hears the placed pads through it.
final class DrumpadAcoustics: @unchecked Sendable {
    // @unchecked: used only under the demo's command lock; the scene and
    // the simulation are thread-safe themselves.
    let level: AcousticLevel
    let scene: AcousticScene
    let simulation: AcousticSimulation

    /// Loads `file` and makes its scene.
    ///
    /// - Parameters:
    ///   - file: An OBJ file's path.
    ///   - engine: The engine whose voices hear it.
    /// - Throws: ``BackbeatError`` when the file cannot be read or its level is refused.
    init(file: String, engine: AudioEngine) throws(BackbeatError) {
        level = try AcousticLevel(contentsOfOBJ: URL(fileURLWithPath: file))
        scene = try AcousticScene(level: level)
        simulation = AcousticSimulation(engine: engine, scene: scene)
    }

    /// A top-down map of the level (x across, -Z up, the level's extent fit
    /// into `columns` × `rows` cells): `#` walls, `+` a closed door, `/` an
    /// open one, rooms by letter, pads by number, `@` the listener.
    ///
    /// - Parameters:
    ///   - placements: Where the pads are.
    ///   - listener: Where the listener is.
    ///   - columns: The map's width in cells.
    ///   - rows: Its height in cells.
    func map(
        placements: [DrumpadCommand.Pad: Audio3DPoint], listener: Audio3DPoint, columns: Int = 48, rows: Int = 16
    ) -> [String] {
        var low = SIMD2<Float>(repeating: .infinity)
        var high = SIMD2<Float>(repeating: -.infinity)
        for mesh in level.staticMeshes + level.rooms.map(\.mesh) {
            for v in mesh.vertices {
                low = pointwiseMin(low, [v.x, v.z])
                high = pointwiseMax(high, [v.x, v.z])
            }
        }
        guard low.x.isFinite, high.x > low.x || high.y > low.y else { return ["  map: the level is empty"] }
        let size = pointwiseMax(high - low, [0.001, 0.001])
        var grid = [[Character]](repeating: [Character](repeating: " ", count: columns), count: rows)
        func cell(_ x: Float, _ z: Float) -> (row: Int, column: Int)? {
            let u = (x - low.x) / size.x
            let w = (z - low.y) / size.y
            guard u.isFinite, w.isFinite else { return nil }
            let column = Int(min(max(u * Float(columns - 1), 0), Float(columns - 1)).rounded())
            let row = Int(min(max(w * Float(rows - 1), 0), Float(rows - 1)).rounded())
            return (row, column)
        }
        func line(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ mark: Character) {
            let steps = 2 * (columns + rows)
            for k in 0...steps {
                let p = a + (b - a) * (Float(k) / Float(steps))
                if let c = cell(p.x, p.z) { grid[c.row][c.column] = mark }
            }
        }
        var legend: [String] = []
        for (index, room) in level.rooms.enumerated() {
            let letter = Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(index % 26)))
            legend.append("\(letter) \(room.name)")
            var rl = SIMD2<Float>(repeating: .infinity)
            var rh = SIMD2<Float>(repeating: -.infinity)
            for v in room.mesh.vertices {
                rl = pointwiseMin(rl, [v.x, v.z])
                rh = pointwiseMax(rh, [v.x, v.z])
            }
            guard let from = cell(rl.x, rl.y), let to = cell(rh.x, rh.y) else { continue }
            for row in from.row...to.row {
                for column in from.column...to.column { grid[row][column] = letter }
            }
        }
        // Walls: the sides of every upright triangle, seen from above.
        for mesh in level.staticMeshes {
            for t in mesh.triangles {
                let a = mesh.vertices[Int(t.x)]
                let b = mesh.vertices[Int(t.y)]
                let c = mesh.vertices[Int(t.z)]
                let n = cross3(b - a, c - a)
                let lengthN = (n * n).sum().squareRoot()
                guard lengthN > 0, abs(n.y) / lengthN < 0.5 else { continue }
                line(a, b, "#")
                line(b, c, "#")
                line(c, a, "#")
            }
        }
        for portal in level.portals where portal.corners.count == 4 {
            let open = (scene.openness(ofPortal: portal.name) ?? 0) > 0
            let bottom = portal.corners.sorted { $0.y < $1.y }
            line(bottom[0], bottom[1], open ? "/" : "+")
        }
        for pad in DrumpadCommand.Pad.allCases {
            if let p = placements[pad], let c = cell(p.x, p.z) {
                grid[c.row][c.column] = Character(String(pad.number))
            }
        }
        if let c = cell(listener.x, listener.z) { grid[c.row][c.column] = "@" }
        let doors = level.portals.map { p in
            "\(p.name) \((scene.openness(ofPortal: p.name) ?? 0) > 0 ? "open" : "closed")"
        }
        return [
            "  level (from above, -Z up; # wall, + closed door, / open door, rooms by letter, @ you):"
        ] + grid.map { "    |" + String($0) + "|" } + [
            "    rooms: " + DrumpadCommand.excerpt(legend.joined(separator: ", "), limit: 120),
            "    doors: " + DrumpadCommand.excerpt(doors.joined(separator: ", "), limit: 120),
        ]
    }

    private func cross3(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
}
