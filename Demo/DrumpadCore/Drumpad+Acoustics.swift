import Backbeat
import BackbeatAcoustics

/// `geometry`, `door` and `listener`: the placed pads heard through a level.
extension Drumpad {
    /// Loads a level from an OBJ file (nil: removes the level). A file that
    /// cannot be read or is refused is one line; the level before stays.
    ///
    /// - Parameter file: The OBJ file's path, or nil for `geometry off`.
    func loadGeometry(_ file: String?) {
        guard let file else {
            guard let old = acoustics else { return report("geometry: no level loaded") }
            // The voices go back to their unfiltered sound.
            old.simulation.scene = nil
            old.simulation.update()
            acoustics = nil
            refreshLevelMap()
            return report("geometry: off")
        }
        do {
            let loaded = try DrumpadAcoustics(file: file, engine: engine)
            acoustics?.simulation.scene = nil
            acoustics?.simulation.update()
            acoustics = loaded
            loaded.simulation.update()
            refreshLevelMap()
            let scene = loaded.scene
            report("geometry: \(scene.triangleCount) triangles, \(scene.roomCount) rooms, \(scene.portalCount) portals")
            for warning in scene.warnings.prefix(3) { report("geometry: warning: \(warning)") }
        } catch {
            report("geometry: \(error)")
        }
    }

    /// Sets a door's openness.
    ///
    /// - Parameters:
    ///   - name: The portal's name.
    ///   - amount: 0 (closed) ... 1 (open).
    func setDoor(_ name: String, _ amount: Float) {
        guard let acoustics else { return report("door: no level loaded (load one with geometry FILE.obj)") }
        do {
            try acoustics.scene.setOpenness(amount, ofPortal: name)
        } catch {
            return report("door: \(error)")
        }
        acoustics.simulation.update()
        refreshLevelMap()
        report(
            "door \(DrumpadCommand.excerpt(name, limit: 40)): "
                + (amount == 0 ? "closed" : amount == 1 ? "open" : "open \(DrumpadCommand.number(amount))"))
    }

    /// Moves the listener.
    ///
    /// - Parameter point: Where, in metres.
    func moveListener(to point: Audio3DPoint) {
        engine.listenerPosition = point
        acoustics?.simulation.update()
        refreshLevelMap()
        let room = acoustics.flatMap { $0.scene.room(containing: [point.x, point.y, point.z]) }
        report(
            "listener: at x \(DrumpadCommand.number(point.x)) y \(DrumpadCommand.number(point.y)) "
                + "z \(DrumpadCommand.number(point.z)) m" + (room.map { " in room \($0)" } ?? ""))
    }

    /// Prints the map when not on a terminal (a script; on a terminal the
    /// screen shows it): the level's with a level loaded, else the placed pads'.
    func printMap() {
        let lines =
            acoustics?.map(placements: placements, listener: engine.listenerPosition)
            ?? DrumpadScreen.map(placements, heading: engine.listenerAngularOrientation.yaw)
        for line in lines { say(line) }
    }

    /// Draws the level's map into the status (or clears it without a level).
    func refreshLevelMap() {
        let lines = acoustics?.map(placements: placements, listener: engine.listenerPosition) ?? []
        updateStatus { $0.levelMap = lines }
    }
}
