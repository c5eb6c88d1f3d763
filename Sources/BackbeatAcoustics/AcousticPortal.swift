/// An opening between two rooms (a door, a window, an archway): a quad whose
/// ``openness`` says how much sound passes, like a Wwise portal.
///
/// A closed portal (openness 0) passes what its ``material`` transmits; an
/// open one (1) passes everything; in between, the open fraction of its area
/// passes everything and the rest what the material transmits (by energy).
public struct AcousticPortal: Sendable {
    /// The portal's name (an OBJ file's `portal:NAME`).
    public var name: String
    /// Its four corners, in order around the quad, in metres.
    public var corners: [SIMD3<Float>]
    /// How open it is, from 0 (closed) to 1 (open).
    public var openness: Float
    /// What it is made of when closed (a door: wood).
    public var material: AcousticMaterial

    /// A portal.
    ///
    /// - Parameters:
    ///   - name: Its name.
    ///   - corners: Four corners in order around the quad.
    ///   - openness: 0 (closed) ... 1 (open); clamped.
    ///   - material: What it is made of when closed.
    public init(name: String, corners: [SIMD3<Float>], openness: Float = 1, material: AcousticMaterial = .wood) {
        self.name = name
        self.corners = corners
        self.openness = openness.isNaN ? 1 : min(max(openness, 0), 1)
        self.material = material
    }

    /// The amplitude gain through the portal per band: the open fraction
    /// passes everything, the rest the material's transmission, by energy.
    var transmission: AcousticBands {
        material.transmission.map { t in (openness + (1 - openness) * t * t).squareRoot() }
    }

    /// The quad's area in square metres (two triangles).
    var area: Float {
        guard corners.count == 4 else { return 0 }
        return 0.5
            * (length(cross(corners[1] - corners[0], corners[2] - corners[0]))
                + length(cross(corners[2] - corners[0], corners[3] - corners[0])))
    }

    /// Its centre.
    var centre: SIMD3<Float> { corners.reduce(.zero, +) / Float(max(corners.count, 1)) }

    /// Its normal (unit length).
    var normal: SIMD3<Float> {
        guard corners.count == 4 else { return .zero }
        return normalized(cross(corners[2] - corners[0], corners[3] - corners[1]))
    }

    /// The quad as a two-triangle mesh.
    var mesh: AcousticMesh {
        AcousticMesh(name: name, vertices: corners, triangles: [[0, 1, 2], [0, 2, 3]], material: material)
    }
}
