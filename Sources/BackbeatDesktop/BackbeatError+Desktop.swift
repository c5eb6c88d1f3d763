import BackbeatEngine
import BackbeatSupport

extension BackbeatError.Code {
    /// There is no D-Bus session bus to reach (no `DBUS_SESSION_BUS_ADDRESS`, or it does not answer).
    public static let noDesktopBus = Self("no desktop bus")
    /// A call to another program on the desktop bus failed; the reason is the program's error.
    public static let desktopCallFailed = Self("desktop bus call failed")
    /// A program on the desktop bus did not answer in time.
    public static let desktopCallTimedOut = Self("desktop bus call timed out")
    /// No media player by that name is on the desktop bus.
    public static let playerNotFound = Self("media player not found")
    /// The media player does not support the operation (it says so through MPRIS).
    public static let unsupportedByPlayer = Self("not supported by the media player")
}
