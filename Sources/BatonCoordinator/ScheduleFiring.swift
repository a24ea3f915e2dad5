import Baton
import BatonStore
import Foundation
import Logging
import ServiceLifecycle

/// Fires schedules from a coordinator: every `interval` seconds, for each schedule in a partition
/// whose lease this coordinator holds, asks `ScheduleDecision` what to fire and submits each due
/// time as a run keyed `schedule:NAME:TIME` (so a restart or a takeover that fires it again gets the
/// same run), then stores the schedule's next time. On a connection and thread of its own; a
/// database error is logged and tried again at the next turn.
public struct ScheduleFiring: Service {
    public let databaseURL: String
    /// The coordinator whose partitions' schedules this fires (`CoordinatorConfiguration.id`).
    public let coordinator: String
    public let interval: Double
    /// The limits a stored graph is decoded under at each firing (`BATON_MAX_*`, as `baton submit` reads them).
    public let limits: GraphLimits
    public let logger: Logger

    public init(databaseURL: String, coordinator: String, interval: Double = 0.25, limits: GraphLimits = GraphLimits(), logger: Logger) {
        self.databaseURL = databaseURL
        self.coordinator = coordinator
        self.interval = interval
        self.limits = limits
        self.logger = logger
    }

    public func run() async throws {
        try await ThreadService.run(name: "baton-schedules") { loop($0) }
    }

    private func loop(_ stop: StopSignal) {
        var store: Store?
        var failing = false
        repeat {
            do {
                if store == nil { store = try Store(url: databaseURL) }
                try turn(store!)
                failing = false
            } catch {
                if !failing { logger.warning("schedules: \(error); trying again") }
                failing = true
                store?.close()
                store = nil
            }
        } while !stop.wait(failing ? max(interval, 2) : interval)
        store?.close()
    }

    /// One look at the due schedules; public for the simulator, which steps it on its own clock.
    public func turn(_ store: some ScheduleStore) throws {
        let (now, due) = try store.dueSchedules(coordinator: coordinator)
        for schedule in due { try fire(schedule, now: now, store: store) }
    }

    private func fire(_ schedule: ScheduleRow, now: Double, store: some ScheduleStore) throws {
        let state = ScheduleState(nextDue: schedule.nextFireAt, queued: schedule.queuedAt)
        let decision: ScheduleDecision
        switch schedule.decision() {
        case let .success(d): decision = d
        case let .failure(problem):
            if schedule.lastError != problem.description {
                _ = try store.recordScheduleStep(
                    schedule.name, expectedNext: schedule.nextFireAt, step: ScheduleStep(state: state), lastFired: nil, lastRunID: nil,
                    error: problem.description)
            }
            return
        }
        let running = schedule.lastRunStatus.map { !$0.isTerminal } ?? false
        let step = decision.step(state, now: now, previousRunning: running)
        if step.isIdle && step.state == state { return }
        var lastFired: Double?
        var lastRunID: String?
        var error: String?
        if !step.fire.isEmpty {
            do {
                var decoder = GraphDecoder(limits: limits)
                // Planned at each firing as `baton submit` plans: a node naming no version runs the newest one served.
                decoder.servedVersions = ServedVersions(workers: try store.liveWorkers(within: nil).map { ($0.pools, $0.procedures) })
                let graph = try decoder.decode(schedule.graph, input: schedule.input, defaultName: schedule.name)
                for due in step.fire {
                    let key = ScheduleRow.idempotencyKey(name: schedule.name, due: due)
                    do {
                        let run = try store.submitScheduled(graph, idempotencyKey: key)
                        lastFired = due
                        lastRunID = run.id
                        if run.created { logger.info("schedule \(schedule.name): fired \(CivilDate.iso8601(due)) as run \(run.id)") }
                    } catch let conflict as IdempotencyKeyConflict {
                        error = "due time \(CivilDate.iso8601(due)): key \(conflict.key) belongs to run \(conflict.runID) of another graph"
                    }
                }
            } catch let invalid as GraphValidationError {
                error = "the stored graph no longer validates: " + invalid.problems.map(\.description).joined(separator: "; ")
            }
        }
        if let error { logger.warning("schedule \(schedule.name): \(error)") }
        _ = try store.recordScheduleStep(
            schedule.name, expectedNext: schedule.nextFireAt, step: step, lastFired: lastFired, lastRunID: lastRunID, error: error)
    }
}
