import ArgumentParser
import Foundation

extension MonitorCommand {
    /// `--reload` comes with live reloading of banks and sounds; until then it says so.
    func runReload(pid: Int32) throws {
        printError(MonitorCommandError("--reload is not available yet: reloading banks and sounds is still to come"))
        throw ExitCode.failure
    }

    /// Runs a mode, turning its failure into one line on standard error and exit status 1.
    ///
    /// - Parameter body: the mode.
    func failingInOneLine(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            printError(error)
            throw ExitCode.failure
        }
    }
}
