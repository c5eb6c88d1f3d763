/// Why `backbeat monitor` could not do what it was asked, in one line.
struct MonitorCommandError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
