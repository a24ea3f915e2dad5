import ArgumentParser
import Baton
import BatonAMQP
import BatonCommandLine

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate", abstract: "Create or upgrade the database schema and declare Baton's topology on the broker (idempotent).")
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @Option(
        help: ArgumentHelp(
            "Partitions to divide runs into, when this creates the schema (1-\(RunPartition.maximum), default \(RunPartition.standard)); fixed after.",
            valueName: "N"))
    var partitions: Int?
    @Option(
        name: .customLong("queue-type"),
        help: ArgumentHelp(
            "Broker queues every process declares: classic (one broker) or quorum (a RabbitMQ cluster); recorded in the database and marked on the broker at --amqp-url.",
            valueName: "TYPE"))
    var queueType: String?
    @Option(
        name: .customLong("partition-by"),
        help: ArgumentHelp(
            "Time partitions of the history (runs, nodes, edges, events): month (default) or day; applies to partitions created from now on.",
            valueName: "UNIT"))
    var partitionBy: String?
    @Flag(
        name: .customLong("no-broker"),
        help: "Migrate the database only: declare nothing on the broker (run `baton migrate` with it before the first coordinator and workers).")
    var noBroker = false

    func validate() throws {
        if let unit = partitionBy, !["month", "day"].contains(unit) {
            throw ValidationError("--partition-by: unknown unit '\(unit)' (use month or day)")
        }
        if let problem = partitions.flatMap(RunPartition.countProblem) { throw ValidationError(problem) }
        if let problem = queueType.flatMap(QueueType.problem) { throw ValidationError("--queue-type: \(problem)") }
        if noBroker && queueType != nil { throw ValidationError("--queue-type marks the broker: it cannot go with --no-broker") }
    }

    func run() throws {
        let store = try connection.openStore(requireSchema: false)
        defer { store.close() }
        // The broker first: one unreachable, or with queues of the other type, refuses before anything is recorded.
        let type = queueType.flatMap(QueueType.init(rawValue:)) ?? (try? store.queueType()).flatMap(QueueType.init(rawValue:)) ?? .classic
        let broker = noBroker ? nil : try prepareBroker(type)
        defer { broker?.close() }
        let applied: [Int]
        do { applied = try store.migrate(partitions: partitions, queueType: queueType, partitionBy: partitionBy) } catch {
            throw CLIFailure("migration failed: \(error)")
        }
        let count = try store.partitionCount()
        let recorded = try store.queueType()
        let unit = try store.partitionUnit()
        if let broker {
            do {
                try BatonTopology.declareAll(partitions: count, queueType: QueueType(rawValue: recorded) ?? type, on: broker)
            } catch { throw CLIFailure("declaring Baton's topology on the broker: \(error)") }
        }
        if output.json {
            Output.json([
                "applied": .array(applied.map { .int(Int64($0)) }), "partitions": .int(Int64(count)), "queue_type": .string(recorded),
                "partition_by": .string(unit), "broker": .bool(!noBroker),
            ])
        } else {
            print(applied.isEmpty ? "schema is up to date" : "applied migration(s) \(applied.map(String.init).joined(separator: ", "))")
            if queueType != nil { print("queue type: \(recorded)") }
            if partitionBy != nil { print("history partitioned by \(unit)") }
        }
    }

    /// Connects to the broker and declares the shared queues as `type`, refusing queues of another type.
    private func prepareBroker(_ type: QueueType) throws -> AMQPConnection {
        let flag = queueType.map { "--queue-type \($0)" } ?? "broker"
        do {
            let amqp = try AMQPConnection(url: connection.amqpURL, connectionName: "baton-migrate")
            do { try BatonTopology.declareCommon(on: amqp, queueType: type) } catch {
                amqp.close()
                throw error
            }
            return amqp
        } catch let error as AMQPError where error.kind == .connectionFailed || error.kind == .loginRefused {
            throw CLIFailure("\(flag): \(error) (`baton migrate --no-broker` migrates the database alone)")
        } catch { throw CLIFailure("\(flag): \(error)") }
    }
}
