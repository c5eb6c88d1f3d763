import BackbeatAcoustics

/// A generated level for the `acoustics` suite: a grid of rooms (walls with
/// doorways, a portal in each) filled with crates, about `triangles` triangles.
enum AcousticsLevelGenerator {
    /// Rooms across and deep, and each room's size in metres.
    static let columns = 5
    static let rows = 4
    static let roomSize: Float = 10
    static let height: Float = 3

    /// The level.
    ///
    /// - Parameters:
    ///   - triangles: About how many triangles (crates make up the rest after walls and rooms).
    ///   - seed: Where the crates go.
    static func level(triangles: Int, seed: UInt64) -> AcousticLevel {
        var random = SeededRandom(seed: seed)
        var level = AcousticLevel()
        let s = roomSize
        // Rooms: boxes of generic surface.
        for row in 0..<rows {
            for column in 0..<columns {
                let low = SIMD3<Float>(Float(column) * s, 0, Float(row) * s)
                level.rooms.append(
                    AcousticRoom(
                        name: "room\(row)_\(column)", mesh: box(from: low, to: low + [s, height, s], .plaster)))
            }
        }
        // Walls between neighbours, each with a 1 m doorway (2 m high) in its middle and a portal in it.
        var walls = WallBuilder()
        for row in 0..<rows {
            for column in 0..<columns {
                let x0 = Float(column) * s
                let z0 = Float(row) * s
                if column + 1 < columns {
                    let x = x0 + s
                    walls.wallWithDoor(along: .z, at: x, from: z0, to: z0 + s, height: height)
                    level.portals.append(
                        AcousticPortal(
                            name: "door\(level.portals.count)",
                            corners: [[x, 0, z0 + 4.5], [x, 0, z0 + 5.5], [x, 2, z0 + 5.5], [x, 2, z0 + 4.5]]))
                }
                if row + 1 < rows {
                    let z = z0 + s
                    walls.wallWithDoor(along: .x, at: z, from: x0, to: x0 + s, height: height)
                    level.portals.append(
                        AcousticPortal(
                            name: "door\(level.portals.count)",
                            corners: [[x0 + 4.5, 0, z], [x0 + 5.5, 0, z], [x0 + 5.5, 2, z], [x0 + 4.5, 2, z]]))
                }
            }
        }
        level.staticMeshes.append(
            AcousticMesh(name: "walls", vertices: walls.vertices, triangles: walls.triangles, material: .concrete))
        // Crates, 12 triangles each, in one mesh.
        let used = level.triangleCount
        var crates = WallBuilder()
        for _ in 0..<max(0, (triangles - used) / 12) {
            let x = Float(random.nextUnit()) * (Float(columns) * s - 1)
            let z = Float(random.nextUnit()) * (Float(rows) * s - 1)
            let size = 0.2 + Float(random.nextUnit()) * 0.6
            crates.box(from: [x, 0, z], to: [x + size, size, z + size])
        }
        level.staticMeshes.append(
            AcousticMesh(name: "crates", vertices: crates.vertices, triangles: crates.triangles, material: .wood))
        return level
    }

    static func box(from low: SIMD3<Float>, to high: SIMD3<Float>, _ material: AcousticMaterial) -> AcousticMesh {
        var builder = WallBuilder()
        builder.box(from: low, to: high)
        return AcousticMesh(name: "box", vertices: builder.vertices, triangles: builder.triangles, material: material)
    }
}
