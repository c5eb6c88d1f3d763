import BackbeatEngine

/// A room: a closed volume (its mesh bounds it and does not block sound) with
/// a reverb worked out from its shape and materials, or set by the game.
public struct AcousticRoom: Sendable {
    /// The room's name (an OBJ file's `room:NAME`).
    public var name: String
    /// The closed surface bounding the room; its materials give the reverb.
    public var mesh: AcousticMesh
    /// The room's reverb, when the game sets it; nil works it out by Eyring's formula.
    public var reverb: AudioEnvironmentReverbParameters?

    /// A room.
    ///
    /// - Parameters:
    ///   - name: Its name.
    ///   - mesh: The closed surface that bounds it.
    ///   - reverb: Its reverb, or nil to work it out from the mesh.
    public init(name: String, mesh: AcousticMesh, reverb: AudioEnvironmentReverbParameters? = nil) {
        self.name = name
        self.mesh = mesh
        self.reverb = reverb
    }
}
