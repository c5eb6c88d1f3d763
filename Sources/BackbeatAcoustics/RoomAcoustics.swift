import BackbeatEngine
import BackbeatMedia

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A room's acoustics worked out from its shape and materials: its volume,
/// surface, mean absorption and decay time per band, and the reverb that follows.
public struct RoomAcoustics: Sendable, Equatable {
    /// The enclosed volume in cubic metres.
    public let volume: Float
    /// The bounding surface in square metres.
    public let surfaceArea: Float
    /// The area-weighted absorption of the surface per band (open portals absorb everything).
    public let meanAbsorption: AcousticBands
    /// Eyring's decay time per band, in seconds: 0.161·V / (−S·ln(1 − ᾱ)).
    public let decayTimes: AcousticBands
    /// The mean free path between reflections, 4V/S, in metres.
    public let meanFreePath: Float

    /// The room's acoustics.
    ///
    /// - Parameters:
    ///   - volume: The enclosed volume in cubic metres.
    ///   - surfaceArea: The bounding surface in square metres.
    ///   - meanAbsorption: The area-weighted absorption per band, 0...1.
    init(volume: Float, surfaceArea: Float, meanAbsorption: AcousticBands) {
        self.volume = volume
        self.surfaceArea = surfaceArea
        self.meanAbsorption = meanAbsorption
        decayTimes = meanAbsorption.map { alpha in
            Self.eyringDecayTime(volume: volume, surfaceArea: surfaceArea, meanAbsorption: alpha)
        }
        meanFreePath = surfaceArea > 0 ? 4 * volume / surfaceArea : 0
    }

    /// Eyring's reverberation time, RT60 = 0.161·V / (−S·ln(1 − ᾱ)), in seconds.
    /// An absorption of 1 (or more) is an anechoic room: 0 s.
    ///
    /// - Parameters:
    ///   - volume: The volume in cubic metres.
    ///   - surfaceArea: The surface in square metres.
    ///   - meanAbsorption: The area-weighted absorption, 0...1.
    static func eyringDecayTime(volume: Float, surfaceArea: Float, meanAbsorption: Float) -> Float {
        guard surfaceArea > 0, meanAbsorption > 0 else { return .infinity }
        guard meanAbsorption < 1 else { return 0 }
        return 0.161 * volume / (-surfaceArea * log(1 - meanAbsorption))
    }

    /// The acoustics of `room`, with `openPortalArea` square metres of its
    /// surface open (portals times their openness) counting as fully absorbing.
    ///
    /// - Parameters:
    ///   - room: The room.
    ///   - openPortalArea: The open area of the portals on its surface, in square metres.
    init(room: AcousticRoom, openPortalArea: Float) {
        let area = room.surfaceArea
        var absorbed = AcousticBands(0)
        for index in room.mesh.triangles.indices {
            let a = room.mesh.area(ofTriangle: index)
            absorbed = absorbed.combined(with: room.mesh.material(ofTriangle: index).absorption) { $0 + a * $1 }
        }
        // The open area replaces the same area of wall: it absorbs what the wall did not.
        let open = min(max(openPortalArea, 0), area)
        let mean =
            area > 0
            ? absorbed.map { total in min((total + open * (1 - total / area)) / area, 1) }
            : AcousticBands(1)
        self.init(volume: room.volume, surfaceArea: area, meanAbsorption: mean)
    }

    /// The environment reverb for this room: decay time from the mid band,
    /// the high and low bands' decay as ratios of it, the first reflection
    /// after one mean free path, and the echo density from the room's size
    /// (EAX's environment size s = ∛V gives density s³/16, at most 1).
    /// Gains stay the `generic` preset's.
    public var reverbParameters: AudioEnvironmentReverbParameters {
        var reverb = AudioEnvironmentReverbParameters()
        reverb.enable = true
        let mid = decayTimes.mid.isFinite ? decayTimes.mid : 20
        reverb.decayTime = MediaTime(seconds: Double(min(max(mid, 0.1), 20)))
        func ratio(_ band: Float) -> Float {
            guard mid > 0, band.isFinite else { return 1 }
            return min(max(band / mid, 0.1), 2)
        }
        reverb.decayHFRatio = ratio(decayTimes.high)
        reverb.properties.decayLFRatio = ratio(decayTimes.low)
        let freeTime = meanFreePath / AcousticBands.speedOfSound
        reverb.reflectionsDelay = MediaTime(seconds: Double(min(max(freeTime, 0), 0.3)))
        reverb.lateReverbDelay = MediaTime(seconds: Double(min(max(freeTime, 0), 0.1)))
        let size = cbrt(max(volume, 0))
        reverb.density = min(size * size * size / 16, 1)
        reverb.diffusion = 1
        return reverb
    }
}
