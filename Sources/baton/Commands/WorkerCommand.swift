import ArgumentParser
import Baton
import BatonCommandLine
import BatonDemo
import BatonWorker

struct WorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Run worker processes serving the built-in procedures (baton.*), and with --demo the demo ones (demo.*).")
    @OptionGroup var options: WorkerOptions
    @Flag(help: "Also serve the demo procedures (demo.*), as deploy/local/demo.sh does.") var demo = false

    func run() async throws {
        try await WorkerLaunch.run(
            options, registry: demo ? .demo : .builtIn, command: ["worker"] + (demo ? ["--demo"] : []), label: "baton.worker",
            extras: .all)
    }
}
