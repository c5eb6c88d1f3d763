import Backbeat
import BackbeatSupport
import DrumpadCore
import Foundation
import Synchronization

/// The interactive terminal: single keys for the pads, a typed command line,
/// and a screen redrawn from the demo's status changes. The terminal's mode
/// is restored on every way out (end of input, quit, signals, errors).
final class Terminal: Sendable {
    private let saved: termios?
    private let typing = LockedValueBox<[UInt8]>([])
    private let dirty = Atomic<Bool>(true)
    private let restored = Atomic<Bool>(false)

    init() {
        var mode = termios()
        guard tcgetattr(STDIN_FILENO, &mode) == 0 else {
            saved = nil
            return
        }
        saved = mode
        // No line buffering or echo; keep ISIG so Ctrl-C is SIGINT (handled by the dispatch source).
        mode.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &mode.c_cc) { cc in
            cc[Int(VMIN)] = 0  // read returns after VTIME with nothing, so the loop can see a quit
            cc[Int(VTIME)] = 1  // tenths of a second
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &mode)
        write("\u{1B}[?25l\u{1B}[2J")  // hide the cursor, clear
    }

    /// Puts the terminal back as it was. Idempotent.
    func restore() {
        guard !restored.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if var mode = saved { tcsetattr(STDIN_FILENO, TCSANOW, &mode) }
        write("\u{1B}[0m\u{1B}[?25h\n")
    }

    private func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes {
                Foundation.write(STDOUT_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            guard n > 0 else { return }
            offset += n
        }
    }

    private func draw(_ demo: Drumpad) {
        guard !restored.load(ordering: .relaxed) else { return }
        var size = winsize()
        let width = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
        let status = demo.status
        let now = demo.engine.isRunning ? demo.engine.currentTime : status.time
        let lines = DrumpadScreen.render(
            status, now: now, typing: String(decoding: typing.withLockedValue { $0 }, as: UTF8.self), width: width)
        write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J")
    }

    /// Reads keys until end of input or quit; redraws about 30 times a second while anything changes.
    func run(_ demo: Drumpad) {
        demo.onStatusChange { [weak self] _ in self?.dirty.store(true, ordering: .relaxed) }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "drumpad screen"))
        timer.schedule(deadline: .now(), repeating: .milliseconds(33))
        timer.setEventHandler { [weak self] in
            guard let self, demo.engine.isRunning else { return }
            // Lit pads and the level meter change with time alone: keep drawing while either shows.
            demo.refreshStatus()
            let status = demo.status
            let lit = status.lastHit.values.contains {
                demo.engine.currentTime - $0 < DrumpadScreen.flash + DrumpadScreen.flash
            }
            if self.dirty.exchange(false, ordering: .relaxed) || lit || status.playbackState == .playing {
                self.draw(demo)
            }
        }
        timer.resume()
        defer { timer.cancel() }

        var escape = false
        var byte: UInt8 = 0
        while demo.engine.isRunning {
            let n = read(STDIN_FILENO, &byte, 1)
            if n < 0 { if errno == EINTR || errno == EAGAIN { continue } else { return } }
            if n == 0 {
                // A timeout (VTIME), or the end of a non-terminal input.
                if isatty(STDIN_FILENO) == 1 { continue } else { return }
            }
            if escape {
                // Swallow an escape sequence (arrows, function keys) up to its final letter.
                if (0x40...0x7E).contains(byte), byte != UInt8(ascii: "[") { escape = false }
                continue
            }
            dirty.store(true, ordering: .relaxed)
            let line = String(decoding: typing.withLockedValue { $0 }, as: UTF8.self)
            switch byte {
            case 0x04 where line.isEmpty: return  // Ctrl-D: end of input
            case 0x1B:
                escape = true
                typing.withLockedValue { $0 = [] }
            case UInt8(ascii: "1")...UInt8(ascii: "4") where line.isEmpty:
                demo.perform(
                    .pad(DrumpadCommand.Pad(number: Int(byte - 0x30))!, velocity: DrumpadCommand.Pad.maximumVelocity))
            case UInt8(ascii: " ") where line.isEmpty:
                demo.perform(.toggle)
            case 0x0A, 0x0D:
                typing.withLockedValue { $0 = [] }
                guard demo.perform(line: line) else { return }
            case 0x7F, 0x08:
                typing.withLockedValue { if !$0.isEmpty { $0.removeLast() } }
            case 0x00..<0x20:
                break
            default:
                typing.withLockedValue { bytes in
                    if bytes.count <= DrumpadCommand.maximumLineLength { bytes.append(byte) }
                }
            }
        }
    }
}
