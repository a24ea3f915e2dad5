import ArgumentParser
import Baton
import BatonStore

struct WorkersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "workers", abstract: "List live workers: pools, slots, last heartbeat.")
    @Option(
        parsing: .unconditional,
        help: "Seconds since the last heartbeat for a worker to count as live (default: three of its heartbeat intervals and a second).")
    var within: Double?
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        if let within, !(within > 0) { throw CLIFailure("--within must be a positive number of seconds", exitCode: 2) }
        let store = try connection.openStore()
        defer { store.close() }
        let workers = try store.liveWorkers(within: within)
        if output.json { try Output.json(workers); return }
        Output.table(
            ["WORKER", "HOST", "PID", "POOLS", "SLOTS", "LAST SEEN"],
            workers.map {
                [
                    $0.id, $0.host, String($0.pid), $0.pools.joined(separator: ","), String($0.slots),
                    String(format: "%.1f s ago", $0.secondsSinceSeen),
                ]
            })
    }
}
