import BackbeatMedia

/// How a change of section sounds.
public enum MusicTransitionStyle: Sendable, Hashable, Codable {
    /// The old section stops on the boundary (a ramp of one update step, a few
    /// milliseconds, so it never clicks) and the new one starts at full level.
    case cut
    /// Equal-power: the old section fades out and the new one in over this long, from the boundary.
    case crossfade(MediaTime)
}
