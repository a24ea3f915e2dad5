import Baton
import BatonAMQP
import Foundation
import Logging
import Tracing

/// How a worker process connects and what it serves.
public struct WorkerConfiguration: Sendable {
    public var amqpURL: String
    public var pools: [String]
    /// Slots: procedures run at once.
    public var concurrency: Int
    /// Tasks taken from the broker at once: those in slots plus those waiting in the worker
    /// for a slot to free. At least `concurrency`; the default is four times it.
    public var prefetch: Int
    public var registry: ProcedureRegistry
    public var id: String
    public var heartbeatInterval: Double
    /// On shutdown, how long running procedures may take to finish before they are handed back.
    public var shutdownGrace: Double
    /// Deliveries of one task without a result (its worker died, or handed it back) before it is dead-lettered.
    public var deliveryLimit: Int
    /// Largest output a procedure may return; a larger one fails the node (permanently).
    public var maxOutputBytes: Int = GraphLimits().maxOutputBytes
    /// Bytes of log and progress reports the worker holds before they are confirmed by the broker;
    /// beyond it they are dropped (and the dropped log lines counted in the node's events).
    /// Results are always kept: one per slot at most.
    public var outboxBytes: Int = WorkerMailbox.defaultBudget
    public var logger: Logger
    /// Metrics to record (`--metrics`); nil records none.
    public var metrics: WorkerMetrics?
    /// The tracer of attempts' spans (`--otlp-endpoint`); nil traces nothing, at no cost.
    public var tracer: (any Tracer)?
    /// What `/healthz` and `/readyz` report; the consumer keeps it current.
    public var health = ServiceHealth()
    /// The consuming side of the broker seam (default: RabbitMQ at `amqpURL`).
    public var makeTaskBroker: @Sendable () -> any WorkerTaskBroker
    /// The publishing side of the broker seam (default: RabbitMQ at `amqpURL`).
    public var makeReportBroker: @Sendable () -> any WorkerReportBroker
    /// Runs the procedures (default: a Swift task per attempt; the simulator's follows its clock).
    public var executor: any AttemptExecutor = TaskExecutor()
    /// The time every decision uses (the simulator's is virtual).
    public var clock: @Sendable () -> Date = { Date() }
    /// Numbers in 0..<1 for back-off jitter (the simulator's are seeded).
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// Waits `seconds` (a back-off) unless `stop` is set first; returns true if it was (the simulator's does not block).
    public var pause: @Sendable (Double, StopSignal) -> Bool = { seconds, stop in stop.wait(seconds) }

    public init(
        amqpURL: String, pools: [String] = ["default"], concurrency: Int = 4, prefetch: Int? = nil,
        registry: ProcedureRegistry = .builtIn, id: String? = nil, heartbeatInterval: Double = 5,
        shutdownGrace: Double = 30, deliveryLimit: Int = 5, logger: Logger = Logger(label: "baton.worker")
    ) {
        self.deliveryLimit = max(1, deliveryLimit)
        self.amqpURL = amqpURL
        self.pools = pools
        self.concurrency = max(1, concurrency)
        self.prefetch = min(65_535, max(self.concurrency, prefetch ?? 4 * self.concurrency))
        self.registry = registry
        let host = ProcessInfo.processInfo.hostName
        self.id = id ?? "\(host)-\(getpid())-\(UUID().uuidString.prefix(4).lowercased())"
        self.heartbeatInterval = heartbeatInterval
        self.shutdownGrace = shutdownGrace
        self.logger = logger
        let id = self.id
        // The broker drops a frozen worker's connection after about twice this, and tasks waiting
        // in it for a slot go back to the queue (the coordinator's lease covers those running).
        let heartbeat = min(30, max(1, Int(heartbeatInterval.rounded(.up))))
        makeTaskBroker = { AMQPWorkerTaskBroker(url: amqpURL, connectionName: "baton-worker \(id)", heartbeatSeconds: heartbeat) }
        makeReportBroker = { AMQPWorkerReportBroker(url: amqpURL, connectionName: "baton-worker-publish \(id)") }
    }
}
