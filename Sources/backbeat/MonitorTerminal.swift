import Foundation

/// The terminal while the live screen runs: raw mode (keys arrive one by
/// one, unechoed; Ctrl-C is a key, not a signal), the alternate screen and
/// a hidden cursor. ``restore()`` puts everything back; the screen calls it
/// on every way out.
final class MonitorTerminal {
    private var saved: termios?
    private var restored = false

    /// Takes over the terminal on standard input and output.
    init() {
        var mode = termios()
        if tcgetattr(STDIN_FILENO, &mode) == 0 {
            saved = mode
            mode.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
            mode.c_iflag &= ~tcflag_t(IXON | ICRNL)
            withUnsafeMutableBytes(of: &mode.c_cc) { cc in
                // Reads return at once with what is there: the loop polls between snapshots.
                cc[Int(VMIN)] = 0
                cc[Int(VTIME)] = 0
            }
            tcsetattr(STDIN_FILENO, TCSANOW, &mode)
        }
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[2J")
    }

    deinit { restore() }

    /// Leaves the alternate screen, shows the cursor and restores the mode. Idempotent.
    func restore() {
        guard !restored else { return }
        restored = true
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        if var mode = saved { tcsetattr(STDIN_FILENO, TCSANOW, &mode) }
    }

    /// The terminal's columns and rows (80 × 24 when it does not say).
    var size: (width: Int, height: Int) {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Waits until a key is typed or `seconds` have passed (a signal ends
    /// the wait sooner).
    ///
    /// - Parameter seconds: the longest wait.
    func waitForKeys(seconds: Double) {
        var polled = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        _ = poll(&polled, 1, Int32(min(max(0, seconds), 1) * 1000 + 0.999))
    }

    /// The bytes typed since the last call; empty when none.
    func typed() -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    /// Writes `text` as it is.
    ///
    /// - Parameter text: bytes for the terminal.
    func write(_ text: String) {
        _ = MonitorCommand.writeOut(text)
    }
}
