import Foundation

extension MonitorScreen {
    /// A key the live screen acts on.
    package enum Key: Sendable, Equatable {
        case up, down, mute, solo, louder, quieter, quit
    }

    /// The keys in bytes read from a terminal in raw mode: arrows (`ESC [ A`,
    /// `ESC O A` and the like), `k`/`j`, `m`, `s`, `+`/`=`, `-`/`_`, `q`,
    /// Ctrl-C and Ctrl-D. Anything else is skipped.
    ///
    /// - Parameter bytes: what one read returned.
    /// - Returns: the keys, in order.
    package static func keys(in bytes: [UInt8]) -> [Key] {
        var keys: [Key] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case 0x1B:
                // An arrow is ESC, then `[` or `O`, then a letter; a lone ESC is nothing.
                if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "[") || bytes[index] == UInt8(ascii: "O") {
                    switch bytes[index + 1] {
                    case UInt8(ascii: "A"): keys.append(.up)
                    case UInt8(ascii: "B"): keys.append(.down)
                    default: break
                    }
                    index += 2
                }
            case UInt8(ascii: "k"): keys.append(.up)
            case UInt8(ascii: "j"): keys.append(.down)
            case UInt8(ascii: "m"), UInt8(ascii: "M"): keys.append(.mute)
            case UInt8(ascii: "s"), UInt8(ascii: "S"): keys.append(.solo)
            case UInt8(ascii: "+"), UInt8(ascii: "="): keys.append(.louder)
            case UInt8(ascii: "-"), UInt8(ascii: "_"): keys.append(.quieter)
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x03, 0x04: keys.append(.quit)
            default: break
            }
        }
        return keys
    }

    /// Moves the selection to the bus above or below the current one, and
    /// stays at the ends.
    ///
    /// - Parameter step: −1 for up, +1 for down.
    package mutating func moveSelection(by step: Int) {
        guard let buses = snapshot?.buses, !buses.isEmpty else { return }
        let index = buses.firstIndex { $0.name == currentBus?.name } ?? 0
        selectedBus = buses[min(buses.count - 1, max(0, index + step))].name
    }

    /// The change a key asks of the selected bus, or nil for a key that
    /// changes nothing in the game (moving the selection, quitting).
    ///
    /// - Parameter key: the key pressed.
    /// - Returns: the setting to send.
    package func setting(for key: Key) -> TelemetrySetting? {
        guard let bus = currentBus else { return nil }
        switch key {
        case .mute: return .busMute(bus: bus.name, muted: !bus.muted)
        case .solo: return .busSolo(bus: bus.name, soloed: !bus.soloed)
        case .louder: return .busVolume(bus: bus.name, volume: Float(Self.steppedVolume(bus.volume, up: true)))
        case .quieter: return .busVolume(bus: bus.name, volume: Float(Self.steppedVolume(bus.volume, up: false)))
        case .up, .down, .quit: return nil
        }
    }

    /// The volume one key press away: 1 dB up or down; from silence up to
    /// 0.05 (−26 dB) rather than crawling up from −120 dB, and under 0.05
    /// down to silence; never over 1, a bus's unity and its highest volume.
    ///
    /// - Parameters:
    ///   - volume: the bus's volume now (linear).
    ///   - up: louder or quieter.
    /// - Returns: the new volume (linear).
    package static func steppedVolume(_ volume: Double, up: Bool) -> Double {
        let step = pow(10, 1.0 / 20)
        guard volume.isFinite, volume > 0 else { return up ? 0.05 : 0 }
        if up { return min(1, max(0.05, volume * step)) }
        let lower = volume / step
        return lower < 0.05 ? 0 : lower
    }
}
