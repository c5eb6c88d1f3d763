import Backbeat
import Foundation

/// `bank FILE`, `event NAME` and `pad N EVENT`: a sound designer's bank
/// played from the drum pad. With `--monitor` the bank follows its file, so
/// an edit saved in an editor is heard at the next hit; a bad edit prints
/// one line (file, line, column, reason) and the old definitions stay.
extension Drumpad {
    /// Loads the bank at `path` (relative to the working folder), replacing
    /// the one loaded before; prints one line listing its events.
    ///
    /// - Parameter path: The bank file.
    func loadBank(_ path: String) {
        let url = URL(fileURLWithPath: path)
        let loaded: SoundBank
        do {
            loaded = try SoundBank(contentsOf: url, engine: engine)
        } catch {
            report("bank: \(error)")
            return
        }
        bank = loaded
        padEvents = [:]
        let names = loaded.events.map(\.name)
        let following = loaded.reloadsWhenChanged ? ", following the file" : ""
        report(
            "bank: \(path): \(names.count == 1 ? "1 event" : "\(names.count) events")\(following): "
                + names.joined(separator: ", "))
        loaded.observe { [weak self] event in
            switch event {
            case .reloaded(let events, let removed):
                self?.report(
                    "bank: reloaded \(path): \(events.joined(separator: ", "))"
                        + (removed.isEmpty ? "" : "; removed \(removed.joined(separator: ", "))"))
            case .reloadFailed(let failure):
                self?.report("bank: \(failure) (the old definitions stay)")
            }
        }
    }

    /// Plays the loaded bank's event `name` now (or at the script's time).
    ///
    /// - Parameter name: The event's name.
    func playEvent(_ name: String) {
        guard let event = bankEvent(name, for: "event") else { return }
        if event.play(at: scriptedTime()).isEmpty {
            report("event: \(name) was not played (its cooldown or instance limit)")
        }
    }

    /// Maps `pad` to the loaded bank's event `name`: hitting the pad posts it.
    ///
    /// - Parameters:
    ///   - pad: The pad.
    ///   - name: The event's name; looked up at each hit, so the bank's reloads apply.
    func mapPad(_ pad: DrumpadCommand.Pad, to name: String) {
        guard bankEvent(name, for: "pad \(pad.number)") != nil else { return }
        padEvents[pad] = name
        report("pad \(pad.number): plays event \(name)")
    }

    /// A hit on a pad `pad N EVENT` mapped.
    ///
    /// - Parameters:
    ///   - pad: The pad.
    ///   - velocity: The hit's 0–127 velocity.
    func hitMapped(_ pad: DrumpadCommand.Pad, velocity: Int) {
        guard let name = padEvents[pad], let event = bankEvent(name, for: "pad \(pad.number)") else { return }
        let gain = DrumpadCommand.Pad.gain(forVelocity: velocity)
        event.play(at: scriptedTime(), volume: gain, position: placements[pad])
    }

    /// The loaded bank's event `name`, or nil after one line saying why.
    private func bankEvent(_ name: String, for command: String) -> SoundEvent? {
        guard let bank else {
            report("\(command): no bank loaded; load one with: bank FILE")
            return nil
        }
        do {
            return try bank.event(named: name)
        } catch {
            report("\(command): no event \"\(name)\" in \(bank.url.lastPathComponent) (\(error.reason ?? "unknown"))")
            return nil
        }
    }
}
