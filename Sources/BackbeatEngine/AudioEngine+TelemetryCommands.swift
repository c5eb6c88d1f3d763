import BackbeatSupport
import BackbeatTelemetry

/// What a monitor may change: the settings a client sends (`--set`), applied
/// under the engine lock as the game's own calls would apply them.
extension AudioEngine {
    /// Applies one setting a monitor sent (the server's thread calls it),
    /// then delivers what it posted.
    ///
    /// - Parameter setting: The change asked for.
    /// - Returns: `.success`, or `.failure` with one line saying why nothing changed.
    package func applyTelemetry(_ setting: TelemetrySetting) -> Result<Void, TelemetryCommandError> {
        defer { deliverPendingEvents() }
        return withLock { () -> Result<Void, TelemetryCommandError> in
            guard isRunningLocked else { return .failure(TelemetryCommandError("the engine has shut down")) }
            return applyTelemetryLocked(setting)
        }
    }

    /// Applies one setting with the lock held: a bus's volume (gliding as
    /// ``Bus/volume`` does), mute or solo, a game parameter's value (its slew
    /// applies); anything else goes to each ``TelemetryContributor`` in turn.
    /// A setting that fails changes nothing.
    ///
    /// - Parameter setting: The change asked for.
    /// - Returns: `.success`, or `.failure` with one line saying why nothing changed.
    package func applyTelemetryLocked(_ setting: TelemetrySetting) -> Result<Void, TelemetryCommandError> {
        preconditionLocked()
        switch setting {
        case .busVolume(let name, let volume):
            return telemetryBus(named: name).map { $0.setVolumeLocked(volume) }
        case .busMute(let name, let muted):
            return telemetryBus(named: name).map { $0.isMutedLocked = muted }
        case .busSolo(let name, let soloed):
            return telemetryBus(named: name).map { $0.setSoloedLocked(soloed) }
        case .parameter(let name, let value):
            let parameters = gameParametersLocked
            let named = parameters.filter { $0.name == name }
            guard !named.isEmpty else {
                return .failure(
                    TelemetryCommandError("no parameter named \"\(name)\" (\(Self.list(parameters.map(\.name))))"))
            }
            for parameter in named { parameter.setValueLocked(value) }
            return .success(())
        default:
            telemetryContributors.removeAll { $0.contributor == nil }
            for entry in telemetryContributors {
                if let result = entry.contributor?.applyTelemetryLocked(setting) { return result }
            }
            return .failure(TelemetryCommandError("\(setting.key): nothing in this game takes it"))
        }
    }

    private func telemetryBus(named name: String) -> Result<Bus, TelemetryCommandError> {
        if let bus = buses.first(where: { $0.name == name }) { return .success(bus) }
        return .failure(TelemetryCommandError("no bus named \"\(name)\" (\(Self.list(buses.map(\.name))))"))
    }

    private static func list(_ names: [String]) -> String {
        names.isEmpty ? "there are none" : names.joined(separator: ", ")
    }
}
