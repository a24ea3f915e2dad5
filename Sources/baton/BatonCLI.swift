import ArgumentParser
import BatonCommandLine
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
            ValidateCommand.self, RunsCommand.self, ShowCommand.self, EventsCommand.self, WatchCommand.self, CancelCommand.self, SignalCommand.self,
            RetryCommand.self, WorkersCommand.self, CoordinatorsCommand.self, GraphCommand.self, ServerCommand.self,
            ProceduresCommand.self, PruneCommand.self, ScheduleCommand.self, BrokerPermissionsCommand.self, TokenCommand.self,
            DatabaseGrantsCommand.self, TriggerCommand.self, WebhookCommand.self,
            PauseCommand.self, ResumeCommand.self,
        ])

    /// Runs the CLI; every error becomes one clear line on stderr and a non-zero exit.
    static func main() async {
        GraphFileYAML.install(.yams)
        await CommandMain.run(BatonCLI.self, program: "baton")
    }
}
