import Baton

/// A stored schedule (`baton.schedules`). Times are seconds since the epoch, on the database's clock.
public struct ScheduleRow: Sendable, Equatable {
    public var name: String
    /// The graph document as `baton schedule add` validated it (its `input` defaults unresolved).
    public var graph: JSON
    /// The run input given with `--input`, merged over the graph's defaults at each firing.
    public var input: JSON?
    public var cron: String?
    public var everySeconds: Double?
    public var timezone: String
    public var overlap: OverlapRule
    public var catchUp: CatchUpRule
    public var paused = false
    public var createdAt: Double = 0
    public var lastFiredAt: Double?
    public var nextFireAt: Double?
    public var queuedAt: Double?
    public var lastRunID: String?
    /// The status of the last run fired, nil if none (or it was removed).
    public var lastRunStatus: RunStatus?
    public var skipped: Int = 0
    public var lastSkippedAt: Double?
    public var lastSkipReason: String?
    public var lastError: String?
    public var partition: Int = 0

    public init(
        name: String, graph: JSON, input: JSON?, cron: String?, everySeconds: Double?, timezone: String, overlap: OverlapRule,
        catchUp: CatchUpRule
    ) {
        self.name = name
        self.graph = graph
        self.input = input
        self.cron = cron
        self.everySeconds = everySeconds
        self.timezone = timezone
        self.overlap = overlap
        self.catchUp = catchUp
    }

    /// `cron "EXPR" in ZONE` or `every 2s`, for tables.
    public var when: String {
        if let cron { return "cron \"\(cron)\" \(timezone)" }
        return "every " + DurationText.format(everySeconds ?? 0)
    }

    /// When it is due, as `ScheduleTiming`; nil if the stored cron or zone no longer reads (a newer
    /// writer's text), which the firing reports as the schedule's error.
    public func timing() -> Result<ScheduleTiming, ScheduleInputError> {
        if let everySeconds { return .success(.every(seconds: everySeconds, anchor: createdAt)) }
        let expression: CronExpression
        do { expression = try CronExpression(parsing: cron ?? "") } catch { return .failure(ScheduleInputError(error.description)) }
        return ScheduleTiming.zone(named: timezone).map { .cron(expression, zone: $0) }
    }

    /// The decision of what to fire, for this schedule's rules.
    public func decision() -> Result<ScheduleDecision, ScheduleInputError> {
        timing().map { ScheduleDecision(timing: $0, catchUp: catchUp, overlap: overlap) }
    }

    /// The idempotency key of its firing for due time `due`.
    public static func idempotencyKey(name: String, due: Double) -> String { "schedule:\(name):\(CivilDate.iso8601(due))" }

    /// The prefix of every key its runs have (scheduled and triggered).
    public static func keyPrefix(_ name: String) -> String { "schedule:\(name):" }
}
