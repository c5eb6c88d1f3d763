/// Why the web monitor could not start or go on, in one line.
struct MonitorWebError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
