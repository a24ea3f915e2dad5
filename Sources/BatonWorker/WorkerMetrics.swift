import Baton
import CoreMetrics
import Foundation

/// A worker process's metrics, made once through a swift-metrics factory (with Prometheus, one
/// registry per worker). `WorkerConfiguration.metrics` nil records nothing and costs nothing.
/// Per task: one histogram observation for its procedure's duration and, when the coordinator
/// stamped the task (`x-baton-queued-at`), one for queued-to-started; no allocation, no lock of its own.
public final class WorkerMetrics: Sendable {
    private let slotsTotal: Gauge
    private let slotsBusy: Gauge
    private let procedureDurations: [String: CoreMetrics.Timer]
    private let queuedToStarted: [String: CoreMetrics.Timer]
    private let redeliveries: Counter
    private let deadLetteredAtLimit: Counter
    private let deadLetteredMalformed: Counter

    /// Metrics for a worker serving `procedures` in `pools` with `slots` slots.
    public init(factory: any MetricsFactory, procedures: [String], pools: [String], slots: Int) {
        slotsTotal = Gauge(label: "baton_worker_slots", factory: factory)
        slotsBusy = Gauge(label: "baton_worker_slots_busy", factory: factory)
        var durations: [String: CoreMetrics.Timer] = [:]
        for name in procedures {
            durations[name] = CoreMetrics.Timer(
                label: "baton_procedure_duration_seconds", dimensions: [("procedure", name)], factory: factory)
        }
        procedureDurations = durations
        var queued: [String: CoreMetrics.Timer] = [:]
        for pool in pools {
            queued[pool] = CoreMetrics.Timer(label: "baton_task_queued_to_started_seconds", dimensions: [("pool", pool)], factory: factory)
        }
        queuedToStarted = queued
        redeliveries = Counter(label: "baton_task_redeliveries_total", factory: factory)
        deadLetteredAtLimit = Counter(label: "baton_worker_dead_letters_total", dimensions: [("reason", "delivery_limit")], factory: factory)
        deadLetteredMalformed = Counter(label: "baton_worker_dead_letters_total", dimensions: [("reason", "malformed")], factory: factory)
        slotsTotal.record(slots)
        slotsBusy.record(0)
    }

    /// Slots busy now (sampled with each heartbeat).
    func busy(_ count: Int) { slotsBusy.record(count) }

    /// A procedure returned (succeeded or failed) after `seconds`.
    func procedureFinished(_ procedure: String, seconds: Double) {
        procedureDurations[procedure]?.recordSeconds(max(0, seconds))
    }

    /// A task of `pool` started in a slot `seconds` after the coordinator published it.
    func started(pool: String, queuedFor seconds: Double) { queuedToStarted[pool]?.recordSeconds(max(0, seconds)) }

    /// A task came back without a result (its worker died or dropped it) and was sent round again.
    func redelivered() { redeliveries.increment() }

    /// A task was rejected to the dead-letter queue: delivered too often, or not a task.
    func deadLettered(malformed: Bool) { (malformed ? deadLetteredMalformed : deadLetteredAtLimit).increment() }
}
