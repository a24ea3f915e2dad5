import Baton
import BatonAMQP
import BatonStore
import Foundation
import Logging
import Tracing

/// How a coordinator connects and batches.
public struct CoordinatorConfiguration: Sendable {
    public var databaseURL: String
    public var amqpURL: String
    /// Most reports applied in one transaction.
    public var batchSize: Int
    /// How often to look for runs whose NOTIFY was missed, in seconds.
    public var pollInterval: Double
    /// Seconds without a heartbeat after which a worker's running attempts are sent to another worker.
    public var lease: Double
    /// This coordinator's id in `baton.coordinators` and on its partitions' leases: unique per process.
    public var id: String = CoordinatorConfiguration.processID()
    /// How long a partition stays this coordinator's without a renewal, in seconds, on the database's
    /// clock (renewed every fifth of it): how long a stalled owner keeps its partitions from the others.
    public var partitionLease: Double = 10
    /// The partition count the schema must have (`--partitions`); nil takes whatever it has.
    public var expectedPartitions: Int?
    /// Largest input a node may be dispatched with, after injection.
    public var maxInputBytes: Int = GraphLimits().maxInputBytes
    /// Largest output a worker may report (JSON bytes): checked again here, a worker's word is not trusted.
    public var maxOutputBytes: Int = GraphLimits().maxOutputBytes
    /// About the most bytes of values one commit statement carries (`--commit-bytes`): a larger batch is
    /// committed in pieces, far below PostgreSQL's 1 GB message and value limits.
    public var commitBytes: Int = 64 << 20
    /// Memory this coordinator's batches may hold (`--memory-budget`): the reports taken in one batch
    /// are bounded to `batchBytes`, an eighth of it, as well as to `batchSize` messages.
    public var memoryBudget: Int = 512 << 20
    /// Outputs smaller than this stay in memory when the budget drops outputs (reading them back costs more than they hold).
    public var offloadMinimumBytes = 1 << 10
    /// The most bytes of report messages taken in one batch (at least one report is always taken).
    public var batchBytes: Int { max(1 << 20, memoryBudget / 8) }
    /// At most this many nodes of one run have a task out (queued or running) at once; the rest wait, ready, in memory.
    public var dispatchWindow: Int = RunState.defaultDispatchWindow
    /// When a queued node's task is taken for lost and published again (`LostTaskReconciler`).
    var lostTasks = LostTaskReconciler.Settings()
    /// Whether queued nodes whose task the broker lost are found and published again (off only in
    /// the simulator's check that it finds the defect without the fix: `baton-sim --no-reconcile`).
    public var reconcileLostTasks = true
    public var logger: Logger
    /// Metrics to record (`--metrics`); nil records none.
    public var metrics: CoordinatorMetrics?
    /// The tracer of runs' and attempts' spans (`--otlp-endpoint`); nil traces nothing, at no cost.
    public var tracer: (any Tracer)?
    /// What `/healthz` and `/readyz` report; the loop keeps it current.
    public var health = ServiceHealth()
    /// The store seam: opens a connection to the store (default: PostgreSQL at `databaseURL`).
    public var makeStore: @Sendable () throws -> any CoordinatorStore
    /// The broker seam (default: RabbitMQ at `amqpURL`).
    public var makeBroker: @Sendable () -> any CoordinatorBroker
    /// The time every decision uses (the simulator's is virtual).
    public var clock: @Sendable () -> Date = { Date() }
    /// Numbers in 0..<1 for random waits and jitter (the simulator's are seeded).
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// Told every run's decisions as they are made, before they are committed (nil: nobody is; the
    /// simulator checks that nothing paused is queued: `PauseSimulation`).
    public var decided: (@Sendable (_ runID: String, _ commands: [SchedulerCommand]) -> Void)?
    /// Draws each queued attempt's token (the simulator's are seeded; a cluster's are 128 bits from the system's CSPRNG).
    public var attemptTokens: @Sendable () -> AttemptToken = { AttemptToken.random() }
    /// Which reports may reach their runs (`--accept-untokened-reports` for a rolling upgrade: see `ReportCheck`).
    public var reportCheck = ReportCheck()
    /// Waits `seconds` (a back-off) unless `stop` is set first; returns true if it was (the simulator's does not block).
    public var pause: @Sendable (Double, StopSignal) -> Bool = { seconds, stop in stop.wait(seconds) }

    /// An id for this process: host, pid and a random part (a pid is reused; the random part is not).
    public static func processID() -> String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
    }

    public init(
        databaseURL: String, amqpURL: String, batchSize: Int = 1_000, pollInterval: Double = 2, lease: Double = 30,
        logger: Logger = Logger(label: "baton.coordinator")
    ) {
        self.lease = lease
        self.databaseURL = databaseURL
        self.amqpURL = amqpURL
        self.batchSize = batchSize
        self.pollInterval = pollInterval
        self.logger = logger
        makeStore = { try Store(url: databaseURL, timeouts: .coordinator) }
        makeBroker = { AMQPCoordinatorBroker(url: amqpURL) }
    }
}
