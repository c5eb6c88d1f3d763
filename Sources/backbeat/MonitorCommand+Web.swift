import ArgumentParser

// Placeholder: the web page's server comes next.
extension MonitorCommand {
    func runWeb(pid: Int32, port: Int) async throws { throw ExitCode.failure }
}
