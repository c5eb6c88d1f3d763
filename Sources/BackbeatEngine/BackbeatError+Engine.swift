import BackbeatSupport

extension BackbeatError.Code {
    /// Monitoring could not start: another engine in this process serves
    /// the socket, or the socket could not be made.
    public static let monitoringUnavailable = Self("monitoring unavailable")
}
