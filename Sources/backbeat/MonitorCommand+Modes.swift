import ArgumentParser

// Placeholders: each mode gets a file of its own as it is built.
extension MonitorCommand {
    func runList() throws { throw ExitCode.failure }
    func runSet(pid: Int32, assignments: [String]) throws { throw ExitCode.failure }
    func runReload(pid: Int32) throws { throw ExitCode.failure }
    func runJSON(pid: Int32, count: Int?, rate: Int?) throws { throw ExitCode.failure }
    func runScreen(pid: Int32, rate: Int?) throws { throw ExitCode.failure }
}
