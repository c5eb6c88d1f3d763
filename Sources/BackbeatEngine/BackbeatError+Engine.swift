import BackbeatSupport

extension BackbeatError.Code {
    /// A capture could not be started (a second capture of one engine, or the file could not be made).
    public static let sessionCaptureUnavailable = Self("session capture unavailable")
    /// Monitoring could not start: another engine in this process serves
    /// the socket, or the socket could not be made.
    public static let monitoringUnavailable = Self("monitoring unavailable")
}
