import ArgumentParser
import Foundation

/// `baton`: submit, run and inspect procedure graphs.
@main
struct BatonCLI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baton",
        abstract: "A distributed procedure-graph engine: graphs of typed procedures, durable in PostgreSQL, run by workers over RabbitMQ.",
        version: "baton \(BatonVersion.number)",
        subcommands: [
            MigrateCommand.self, CoordinatorCommand.self, WorkerCommand.self, SubmitCommand.self, RunCommand.self,
            ValidateCommand.self, RunsCommand.self, ShowCommand.self, EventsCommand.self, WatchCommand.self, CancelCommand.self,
            RetryCommand.self, WorkersCommand.self, GraphCommand.self, DashboardCommand.self,
            ProceduresCommand.self,
        ])

    /// Runs the CLI; every error becomes one clear line on stderr and a non-zero exit.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch let failure as CLIFailure {
            FileHandle.standardError.write(Data(("baton: " + failure.message + "\n").utf8))
            Foundation.exit(failure.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success {  // --help, --version
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            // A usage error: the parser's first line, then where to read more. Exit 2, like every bad input.
            var message = message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            if message.hasPrefix("Error: ") { message.removeFirst("Error: ".count) }
            FileHandle.standardError.write(Data("baton: \(message) (see `baton --help`)\n".utf8))
            Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}
