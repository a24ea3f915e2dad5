import ArgumentParser
import Baton
import BatonCommandLine
import BatonStore
import Foundation

struct CoordinatorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordinators", abstract: "List live coordinators: host, pid, partitions and their epochs, runs loaded, nodes/s.")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let access = try connection.openRuns()
        defer { access.close() }
        let (coordinators, count) = try await access.coordinators()
        if output.json { try Output.json(coordinators); return }
        guard !coordinators.isEmpty else {
            print("no coordinator is running (none announced itself within its lease); the \(count) partitions wait for one")
            return
        }
        Output.table(
            ["COORDINATOR", "HOST", "PID", "PARTITIONS", "EPOCHS", "RUNS", "NODES/S", "LAST SEEN"],
            coordinators.map {
                [
                    $0.id, $0.host, String($0.pid), "\($0.partitions.count): \(PartitionRanges.text($0.partitions.map(\.partition)))",
                    $0.epochRange,
                    String($0.runs), String(format: "%.0f", $0.nodesPerSecond), String(format: "%.1f s ago", $0.secondsSinceSeen),
                ]
            })
        let held = coordinators.reduce(0) { $0 + $1.partitions.count }
        print("\(held) of \(count) partitions held" + (held < count ? ", \(count - held) free (taken at the next balance)" : ""))
    }
}
