import Baton
import Testing

/// The event kinds are stored text (`baton.events.kind`): their raw values must never change, and a
/// kind this build does not know must be readable.
struct EventKindTests {
    @Test func rawValuesAreTheStoredText() {
        let stored: [EventKind: String] = [
            .started: "started", .timedOut: "timed_out", .deadLettered: "dead_lettered", .deadLetteredUnstarted: "dead_lettered_unstarted",
            .leaseExpired: "lease_expired", .conditionQueued: "condition_queued", .conditionStarted: "condition_started",
            .awaitingAdmission: "awaiting_admission", .awaitingRate: "awaiting_rate", .awaitingSignal: "awaiting_signal",
            .signalKept: "signal_kept", .signalIgnored: "signal_ignored", .logLimit: "log_limit", .runSucceeded: "run_succeeded",
            .runFailed: "run_failed", .runCancelled: "run_cancelled", .submitted: "submitted",
        ]
        for (kind, text) in stored { #expect(kind.rawValue == text) }
        #expect(Set(EventKind.allCases.map(\.rawValue)).count == EventKind.allCases.count)
    }

    @Test func aNodeStatusIsItsOwnKindButRunningIsStarted() {
        for status in NodeStatus.allCases {
            #expect(EventKind(status: status).rawValue == (status == .running ? "started" : status.rawValue))
        }
        for status in RunStatus.allCases { #expect(EventKind(run: status).rawValue == "run_\(status.rawValue)") }
    }

    @Test func anUnknownKindIsShownNotDecided() {
        #expect(EventKind(rawValue: "from_a_newer_coordinator") == nil)
        var row = TimelineRow(key: "a", status: "running")
        row.apply(TimelineEvent(node: "a", kind: "queued", at: 1, attempt: 1))
        row.apply(TimelineEvent(node: "a", kind: "from_a_newer_coordinator", at: 2))
        row.apply(TimelineEvent(node: "a", kind: "awaiting_quota", at: 3, attempt: 1))
        #expect(row.attempts.count == 1 && row.waits.map(\.reason) == ["quota"])
    }
}
