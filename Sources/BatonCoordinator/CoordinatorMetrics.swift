import Baton
import CoreMetrics
import Foundation

/// The coordinator's metrics, made once through a swift-metrics factory (with Prometheus, one
/// registry per coordinator: nothing process-global). `CoordinatorConfiguration.metrics` nil
/// records nothing and costs nothing. Only the coordinator's thread records; counts come from
/// committed batches (`BatchTally`).
public final class CoordinatorMetrics: @unchecked Sendable {
    // Safe: `queueDepths` and `runStarts` are touched only by the coordinator's thread; the rest is immutable.
    private let factory: any MetricsFactory
    private let runsEnded: [RunStatus: Counter]
    private let nodesEnded: [NodeStatus: Counter]
    private let runDuration: CoreMetrics.Timer
    private let batchCommands: Recorder
    private let commitTime: CoreMetrics.Timer
    private let deadLetters: Counter
    private let partitionsHeld: Gauge
    private let brokerBlockedGauge: Gauge
    private let partitionChanges: [PartitionChange: Counter]
    private let tasksReturned: Counter
    private let tasksRepublished: [String: Counter]
    private let reportsRefused: [ReportCheck.Refusal: Counter]
    private var queueDepths: [String: Gauge] = [:]
    private var commitRetries: [String: Counter] = [:]
    private let offloaded: Counter
    private let pausedKinds: [PauseKind: Gauge]
    private let pausedNodes: Gauge
    private var runStarts: [String: Date] = [:]
    /// Seconds between readings of the task queues' depths (`baton_tasks_waiting`).
    public var queueDepthInterval: Double = 5

    public init(factory: any MetricsFactory) {
        self.factory = factory
        var runs: [RunStatus: Counter] = [:]
        for status in [RunStatus.succeeded, .failed, .cancelled] {
            runs[status] = Counter(label: "baton_runs_ended_total", dimensions: [("state", status.rawValue)], factory: factory)
        }
        runsEnded = runs
        var nodes: [NodeStatus: Counter] = [:]
        for status in [NodeStatus.succeeded, .failed, .cancelled, .skipped] {
            nodes[status] = Counter(label: "baton_nodes_ended_total", dimensions: [("state", status.rawValue)], factory: factory)
        }
        nodesEnded = nodes
        runDuration = CoreMetrics.Timer(label: "baton_run_duration_seconds", factory: factory)
        batchCommands = Recorder(label: "baton_coordinator_batch_commands", aggregate: true, factory: factory)
        commitTime = CoreMetrics.Timer(label: "baton_coordinator_commit_seconds", factory: factory)
        deadLetters = Counter(label: "baton_dead_letters_total", factory: factory)
        offloaded = Counter(label: "baton_coordinator_outputs_offloaded_bytes_total", factory: factory)
        var kinds: [PauseKind: Gauge] = [:]
        for kind in PauseKind.allCases {
            kinds[kind] = Gauge(label: "baton_paused", dimensions: [("kind", kind.rawValue)], factory: factory)
            kinds[kind]!.record(0)
        }
        pausedKinds = kinds
        pausedNodes = Gauge(label: "baton_paused_nodes", factory: factory)
        pausedNodes.record(0)
        partitionsHeld = Gauge(label: "baton_coordinator_partitions", factory: factory)
        partitionsHeld.record(0)
        brokerBlockedGauge = Gauge(label: "baton_broker_blocked", factory: factory)
        brokerBlockedGauge.record(0)
        var changes: [PartitionChange: Counter] = [:]
        for change in PartitionChange.allCases {
            changes[change] = Counter(
                label: "baton_coordinator_partition_changes_total", dimensions: [("change", change.rawValue)], factory: factory)
        }
        partitionChanges = changes
        tasksReturned = Counter(label: "baton_tasks_returned_total", factory: factory)
        var republished: [String: Counter] = [:]
        for reason in LostTaskReconciler.Reason.allCases {
            republished[reason.rawValue] = Counter(
                label: "baton_tasks_republished_total", dimensions: [("reason", reason.rawValue)], factory: factory)
        }
        tasksRepublished = republished
        var refused: [ReportCheck.Refusal: Counter] = [:]
        for reason in ReportCheck.Refusal.allCases {
            refused[reason] = Counter(label: "baton_reports_refused_total", dimensions: [("reason", reason.rawValue)], factory: factory)
        }
        reportsRefused = refused
    }

    /// Tasks the broker returned unroutable (`mandatory`: no queue was bound for their routing key).
    func returned(_ count: Int) { if count > 0 { tasksReturned.increment(by: count) } }

    /// Tasks published again under the same attempt because the broker lost them (`reason`, a
    /// `LostTaskReconciler.Reason`).
    func republished(_ count: Int, reason: String) { if count > 0 { tasksRepublished[reason]?.increment(by: count) } }

    /// A report (or dead letter) refused for its attempt's token (`ReportCheck`): it changed nothing.
    func reportRefused(_ reason: ReportCheck.Refusal) { reportsRefused[reason]?.increment() }

    /// A batch was committed: `tally` of its commands, `seconds` its statement took.
    func committed(_ tally: BatchTally, seconds: Double, now: Date) {
        guard tally.commands > 0 else { return }
        batchCommands.record(tally.commands)
        commitTime.recordSeconds(seconds)
        for (status, count) in tally.runsEnded { runsEnded[status]?.increment(by: count) }
        for (status, count) in tally.nodesEnded { nodesEnded[status]?.increment(by: count) }
        for runID in tally.runsStarted { runStarts[runID] = now }
        for runID in tally.runsFinished {
            // A run this coordinator did not see start (it took over meanwhile) has no duration here.
            if let start = runStarts.removeValue(forKey: runID) { runDuration.recordSeconds(max(0, now.timeIntervalSince(start))) }
        }
    }

    /// Dead-lettered tasks whose node was failed, once that was committed.
    func deadLettered(_ count: Int) { if count > 0 { deadLetters.increment(by: count) } }

    /// The coordinator lost its connections: runs it had seen start are loaded afresh.
    func forgetRuns() { runStarts = [:] }

    /// How many partitions this coordinator holds (0 while it reconnects): the sum over all
    /// coordinators should be the schema's partition count.
    func partitions(_ count: Int) { partitionsHeld.record(count) }

    /// `baton_paused{kind}`: how many procedures, pools and runs are paused.
    func pauses(_ pauses: Pauses) {
        pausedKinds[.procedure]?.record(pauses.procedures.count)
        pausedKinds[.pool]?.record(pauses.pools.count)
        pausedKinds[.run]?.record(pauses.runs.count)
    }

    /// `baton_paused_nodes`: nodes of this coordinator's runs waiting for a pause to end.
    func pausedNodes(_ count: Int) { pausedNodes.record(count) }

    /// 1 while the broker blocks publishers (`connection.blocked`: a memory or disk alarm), else 0.
    func brokerBlocked(_ blocked: Bool) { brokerBlockedGauge.record(blocked ? 1 : 0) }

    /// Partitions this coordinator took, handed over, or lost to another (its lease ran out).
    func partitionsChanged(_ change: PartitionChange, count: Int) {
        if count > 0 { partitionChanges[change]?.increment(by: count) }
    }

    /// A commit failed and its batch is sent again (whole after a back-off or a reconnect, or split),
    /// for `reason` (`FailureDecision.retryReason`): `baton_commit_retries_total{reason}`.
    func commitRetried(reason: String) {
        let counter =
            commitRetries[reason]
            ?? {
                let made = Counter(label: "baton_commit_retries_total", dimensions: [("reason", reason)], factory: factory)
                commitRetries[reason] = made
                return made
            }()
        counter.increment()
    }

    /// Outputs of about `bytes` were dropped from memory past half the memory budget (read back from PostgreSQL when needed).
    func outputsOffloaded(bytes: Int) { if bytes > 0 { offloaded.increment(by: bytes) } }

    /// Messages waiting in the task queue of `procedure` in `pool`, as the broker counts them.
    func tasksWaiting(pool: String, procedure: String, count: Int) {
        let key = "\(pool):\(procedure)"
        let gauge =
            queueDepths[key]
            ?? {
                let made = Gauge(label: "baton_tasks_waiting", dimensions: [("pool", pool), ("procedure", procedure)], factory: factory)
                queueDepths[key] = made
                return made
            }()
        gauge.record(count)
    }
}
