import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

@testable import BatonAMQP
@testable import BatonCoordinator

@Suite("Coordinator decisions: leases, batching, failures")
struct CoordinatorDecisionTests {
    let t0 = Date(timeIntervalSince1970: 1_000_000)

    @Test func aWorkerSilentPastItsLeaseIsLostOnce() {
        var leases = LeaseTracker(lease: 10)
        leases.heard("a", at: t0)
        leases.heard("b", at: t0)
        leases.heard("b", at: t0.addingTimeInterval(8))
        #expect(leases.expired(at: t0.addingTimeInterval(10)).isEmpty, "exactly at the lease is not past it")
        #expect(leases.expired(at: t0.addingTimeInterval(10.5)) == ["a"])
        #expect(leases.expired(at: t0.addingTimeInterval(11)).isEmpty, "reported once")
        #expect(leases.expired(at: t0.addingTimeInterval(19)) == ["b"])
    }

    @Test func aStoppedWorkerIsNotLostAndAnExpectedOneGetsAFullLease() {
        var leases = LeaseTracker(lease: 10)
        leases.heard("a", at: t0)
        leases.stopped("a")
        #expect(leases.expired(at: t0.addingTimeInterval(100)).isEmpty)
        leases.expect("ghost", at: t0)
        leases.expect("ghost", at: t0.addingTimeInterval(5))  // does not extend
        #expect(leases.expired(at: t0.addingTimeInterval(9)).isEmpty)
        #expect(leases.expired(at: t0.addingTimeInterval(10.1)) == ["ghost"])
    }

    @Test func aDeafSpellOfTheCoordinatorDoesNotCountAgainstTheWorkers() {
        var leases = LeaseTracker(lease: 9)  // deaf after 3 s without a receive
        func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
        leases.listened(at: at(0))
        leases.heard("a", at: at(0))
        leases.heard("b", at: at(0))
        leases.listened(at: at(1))
        // Paused from 1 s to 21 s: nothing expires before it has listened again...
        #expect(leases.expired(at: at(21)).isEmpty)
        // ...and the 20 s it did not listen move every lease on (a and b now count from 20 s).
        leases.listened(at: at(21))
        leases.heard("b", at: at(21.5))
        leases.listened(at: at(24))
        leases.listened(at: at(27))
        #expect(leases.expired(at: at(28)).isEmpty, "a has been silent 9 s, 8 of them listened to")
        leases.listened(at: at(29.5))
        #expect(leases.expired(at: at(29.5)) == ["a"], "a: silent 9.5 s while the coordinator listened")
        // Receives under a third of the lease apart (slow commits) are not deaf spells: b's lease stays put.
        leases.listened(at: at(31.5))
        #expect(leases.expired(at: at(31.5)) == ["b"])
    }

    /// A memory or disk alarm: no worker can publish a heartbeat, so none is lost for its silence; after
    /// the block every lease moves on by its length, with half a lease of grace for the held heartbeats.
    @Test func noLeaseRunsOutWhileTheBrokerBlocksPublishersNorInTheGraceAfter() {
        var leases = LeaseTracker(lease: 10)
        func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
        leases.heard("a", at: at(0))
        leases.heard("b", at: at(0))
        leases.brokerBlocked(false, at: at(1))  // not blocked: nothing changes
        leases.brokerBlocked(true, at: at(2))
        leases.brokerBlocked(true, at: at(30))  // still the same block
        #expect(leases.expired(at: at(46)).isEmpty, "45 s of alarm: silence nobody could break is not death")
        leases.brokerBlocked(false, at: at(47))  // 45 s blocked: a and b count from 45 s on, held until 52 s
        #expect(leases.expired(at: at(51.9)).isEmpty, "the grace after the block")
        leases.heard("b", at: at(50))  // b's held heartbeat arrives
        #expect(leases.expired(at: at(55.5)) == ["a"], "a stayed silent past the block's grace and its lease")
        #expect(leases.expired(at: at(59)).isEmpty)
        #expect(leases.expired(at: at(60.5)) == ["b"])
        // Without a block, the same silence is lost at once.
        var plain = LeaseTracker(lease: 10)
        plain.heard("a", at: at(0))
        #expect(plain.expired(at: at(46)) == ["a"])
    }

    /// A block that began and ended between two looks (the coordinator was busy, or paused): the
    /// silence since the last look may be the block's, so it counts as one, with its grace after.
    @Test func aBlockMissedBetweenTwoLooksStillHoldsTheLeases() {
        var leases = LeaseTracker(lease: 10)
        func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
        leases.heard("a", at: at(0))
        leases.brokerFlow(BrokerFlow(blocked: nil, blocks: 0), at: at(1))
        leases.brokerFlow(BrokerFlow(blocked: nil, blocks: 1), at: at(20))  // blocked and unblocked since 1 s
        #expect(leases.expired(at: at(24)).isEmpty, "held: the block moved a's lease on by 19 s, and the grace")
        #expect(leases.expired(at: at(30.5)) == ["a"])
    }

    /// A coordinator that (re)connects mid-block: its broker connection is new and knows nothing of
    /// the block's start, and the heartbeats the database saw are from before it. All that silence
    /// may be the block's (found by the simulator with --blocked-publishers, seed 87).
    @Test func aCoordinatorThatConnectsDuringABlockHoldsTheLeasesUntilItsGraceAfter() {
        func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
        var leases = LeaseTracker(lease: 10, lastSeen: ["a": at(0), "b": at(3)])
        listen(&leases, from: 15, to: 15)
        leases.brokerFlow(BrokerFlow(blocked: "low on memory", blocks: 1), at: at(15))
        listen(&leases, from: 16, to: 40)
        #expect(leases.expired(at: at(40)).isEmpty, "blocked")
        listen(&leases, from: 41, to: 50)
        leases.brokerFlow(BrokerFlow(blocked: nil, blocks: 1), at: at(50))
        listen(&leases, from: 51, to: 54)
        #expect(leases.expired(at: at(54)).isEmpty, "the grace after the block")
        listen(&leases, from: 55, to: 60.5)
        #expect(leases.expired(at: at(60.5)) == ["a"], "a was last heard as the silence began: a lease after the block ended")
    }

    /// Just connected, not blocked: the coordinator has not listened yet (a block may have just
    /// ended), so no lease runs out for half a lease after its first receive; then the silent ones do.
    @Test func aCoordinatorJustConnectedListensBeforeAnyLeaseRunsOut() {
        func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
        var leases = LeaseTracker(lease: 10, lastSeen: ["a": at(0)])
        listen(&leases, from: 30, to: 30)
        leases.brokerFlow(BrokerFlow(blocked: nil, blocks: 0), at: at(30))
        listen(&leases, from: 31, to: 34)
        #expect(leases.expired(at: at(34)).isEmpty)
        leases.heard("b", at: at(34))
        listen(&leases, from: 35, to: 35.5)
        #expect(leases.expired(at: at(35.5)) == ["a"])
    }

    /// A coordinator whose reconnect takes long (taking its partitions back, a commit retried for 20 s):
    /// the workers' heartbeats wait in its queue meanwhile, so no lease runs out before its first
    /// receive, nor for half a lease after it. Before, the grace counted from the start of the
    /// connect and had run out by its end: live workers lost their leases (the long run's seeds 6286,
    /// 6993, 7372, 9437, and 1416 with --schedules).
    @Test func aCoordinatorSlowToReconnectExpiresNoLeaseBeforeItListens() {
        func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
        var leases = LeaseTracker(lease: 10, lastSeen: ["a": at(28), "b": at(28)])
        leases.brokerFlow(BrokerFlow(blocked: nil, blocks: 0), at: at(50))
        #expect(leases.expired(at: at(50)).isEmpty, "not listened yet")
        listen(&leases, from: 50, to: 52)
        leases.heard("a", at: at(52))  // its heartbeats waited in the queue
        listen(&leases, from: 53, to: 54.5)
        #expect(leases.expired(at: at(54.5)).isEmpty, "the grace after the first receive")
        listen(&leases, from: 55, to: 55.5)
        #expect(leases.expired(at: at(55.5)) == ["b"], "b, still silent, is lost; a is heard")
    }

    /// Receives once a second from `from` to `to` (seconds after t0), as a coordinator's loop does:
    /// no deaf spell.
    private func listen(_ leases: inout LeaseTracker, from: Double, to: Double) {
        var t = from
        while t < to {
            leases.listened(at: t0.addingTimeInterval(t))
            t += 1
        }
        leases.listened(at: t0.addingTimeInterval(to))
    }

    @Test func batchesWaitOnlyWhenEmptyAndStopWhenFull() {
        let policy = ReceivePolicy(batchSize: 3)
        #expect(policy.wait(received: 0, hasPending: false, nextWakeUp: nil, now: t0) == 0.05)
        #expect(policy.wait(received: 1, hasPending: false, nextWakeUp: nil, now: t0) == 0)
        #expect(policy.wait(received: 0, hasPending: true, nextWakeUp: nil, now: t0) == 0)
        let untilTimer = policy.wait(received: 0, hasPending: false, nextWakeUp: t0.addingTimeInterval(0.01), now: t0) ?? -1
        #expect(abs(untilTimer - 0.01) < 1e-6, "a timer due sooner shortens the wait")
        #expect(policy.wait(received: 0, hasPending: false, nextWakeUp: t0.addingTimeInterval(-1), now: t0) == 0)
        #expect(policy.wait(received: 3, hasPending: false, nextWakeUp: nil, now: t0) == nil)
    }

    static func pg(_ code: String) -> PostgresError { PostgresError(kind: .query, message: "injected", sqlState: code) }

    @Test(arguments: ["08006", "08003", "57P01", "57P02", "57P03", "BT001"])
    func aLostConnectionMeansReconnect(_ code: String) {
        #expect(FailureDecision.committing(runs: ["a", "b"], error: Self.pg(code)) == .reconnect(cap: 5))
        #expect(FailureDecision.loading("a", error: Self.pg(code)) == .reconnect(cap: 5))
        let lost = PostgresError(kind: .connection, message: "server closed the connection")
        #expect(FailureDecision.committing(runs: ["a"], error: lost) == .reconnect(cap: 5))
    }

    @Test(arguments: ["40001", "40P01", "53100", "53200", "53300", "57014", "55P03"])
    func passingErrorsRetryTheSameBatch(_ code: String) {
        #expect(FailureDecision.committing(runs: ["a", "b"], error: Self.pg(code)) == .retryBatch)
        #expect(FailureDecision.committing(runs: ["a"], error: Self.pg(code)) == .retryBatch, "one run is not failed for a passing error")
        #expect(FailureDecision.committing(runs: [], error: Self.pg(code)) == .retryBatch)
        #expect(StoreFailure(Self.pg(code)) == .retry)
    }

    @Test(arguments: ["40001", "40P01", "53100", "57014", "55P03"])
    func aBatchThatKeepsFailingIsSplitRatherThanSentAgainUnchanged(_ code: String) {
        let error = Self.pg(code)
        for failures in 1..<FailureDecision.retriesBeforeSplit {
            #expect(FailureDecision.committing(runs: ["a", "b"], error: error, failures: failures) == .retryBatch)
        }
        let last = FailureDecision.retriesBeforeSplit
        #expect(FailureDecision.committing(runs: ["a", "b"], error: error, failures: last) == .splitBatch)
        #expect(FailureDecision.committing(runs: ["a"], error: error, failures: 50) == .retryBatch, "one run's batch backs off, never failed")
    }

    @Test func commitRetriesAreCountedByTheReasonItsSQLStateGives() {
        let reasons = ["40001", "40P01", "55P03", "57014", "53100", "54000", "22P02", "08006"].map { FailureDecision.retryReason(Self.pg($0)) }
        #expect(reasons == ["serialization", "deadlock", "lock", "timeout", "resources", "size", "data", "connection"])
        #expect(FailureDecision.retryReason(PostgresError(kind: .connection, message: "server closed the connection")) == "connection")
        #expect(FailureDecision.retryReason(AMQPError(.connectionLost, "lost")) == "broker")
    }

    @Test(arguments: ["22P02", "22023", "22P05", "23514", "23505", "54000"])
    func dataErrorsFailOneRunFoundBySplitting(_ code: String) {
        let error = Self.pg(code)
        #expect(FailureDecision.committing(runs: ["a", "b"], error: error) == .splitBatch)
        #expect(
            FailureDecision.committing(runs: ["a"], error: error)
                == .failRun("a", message: "the coordinator cannot record this run's progress: \(error)"))
        #expect(FailureDecision.committing(runs: [], error: error) == .dropBookkeeping)
        let broken = StoreError("run a: node 'x' has unknown status 'bogus'")
        #expect(FailureDecision.loading("a", error: broken) == .failRun("a", message: "the coordinator cannot load this run: \(broken)"))
    }

    @Test(arguments: ["42P01", "42501", "XX000", "55000", "P0001", "3D000"])
    func anyOtherDatabaseErrorStopsTheCoordinator(_ code: String) {
        let error = Self.pg(code)
        #expect(FailureDecision.committing(runs: ["a", "b"], error: error) == .stop("cannot write to PostgreSQL: \(error)"))
        #expect(FailureDecision.connection(error, everConnected: true) == .stop("cannot use PostgreSQL: \(error)"))
        #expect(FailureDecision.loading("a", error: error) == .stop("cannot read run a from PostgreSQL: \(error)"))
        #expect(FailureDecision.committing(runs: ["a"], error: PostgresError(kind: .query, message: "no code")) != .retryBatch)
    }

    @Test func brokerErrorsReconnectUnlessTheyAreConfigurationErrorsAtStartUp() {
        let lost = AMQPError(.connectionLost, "gone")
        let forced = AMQPError(.connectionLost, "CONNECTION_FORCED", replyCode: 320)
        let refused = AMQPError(.loginRefused, "ACCESS_REFUSED", replyCode: 403)
        let noVhost = AMQPError(.loginRefused, "NOT_ALLOWED", replyCode: 530)
        let precondition = AMQPError(.channelClosed, "PRECONDITION_FAILED", channel: 1, replyCode: 406)
        let badURL = AMQPError(.invalidURL, "no host")
        for error in [lost, forced, AMQPError(.channelClosed, "NOT_FOUND", channel: 1, replyCode: 404), AMQPError(.nacked, "x")] {
            #expect(error.disposition == .reconnect, "\(error)")
            #expect(FailureDecision.connection(error, everConnected: false) == .reconnect(cap: 5), "\(error)")
            #expect(FailureDecision.committing(runs: ["a"], error: error) == .reconnect(cap: 5))
        }
        for error in [refused, noVhost, precondition, badURL] {
            #expect(error.disposition == .configuration, "\(error)")
            #expect(FailureDecision.connection(error, everConnected: false) == .stop("cannot use RabbitMQ: \(error)"))
            #expect(FailureDecision.connection(error, everConnected: true) == .reconnect(cap: 30), "at run time: retried, slowly")
        }
    }

    @Test func theConfigurationBackoffGrowsToThirtySecondsAndNoFurther() {
        var backoff = Backoff()
        var last = 0.0
        for _ in 0..<40 { last = backoff.next(cappedAt: 30) }
        #expect(last >= 15 && last <= 30)
        var usual = Backoff()
        for _ in 0..<40 { last = usual.next() }
        #expect(last <= 5)
    }

    @Test func aSplitBatchKeepsEachRunsCommandsAndTheBookkeepingOnce() {
        var batch = PendingBatch()
        let task = TaskDispatch(runID: "r1", key: "n", attempt: 1, procedure: "p", input: .null, pool: "default", priority: 0)
        batch.record("r1", [.dispatch(task)])
        batch.record("r2", [.runStatus(.running, error: nil)])
        batch.record("r1", [.cancelTasks(runID: "r1", attempts: [TaskRef(key: "m", attempt: 2)])])
        batch.handledRequests = [7]
        batch.confirmedBatch = 41
        #expect(batch.order == ["r1", "r2"])
        #expect(batch.publications == [.task(task), .cancel(ControlMessage(runID: "r1", attempts: [TaskRef(key: "m", attempt: 2)]))])
        let parts = batch.split()
        #expect(parts.count == 3)
        #expect(parts[0].order.isEmpty && parts[0].handledRequests == [7] && parts[0].confirmedBatch == 41)
        #expect(parts[1].order == ["r1"] && parts[1].commandCount == 2 && parts[1].handledRequests.isEmpty)
        #expect(parts[2].order == ["r2"])
        batch.drop("r1")
        #expect(batch.order == ["r2"] && batch.publications.isEmpty)
    }

    @Test func aLargeBatchIsCommittedInOrderedPiecesWithTheBookkeepingInTheFirst() {
        var batch = PendingBatch()
        func task(_ run: String, _ i: Int) -> TaskDispatch {
            TaskDispatch(runID: run, key: "n\(i)", attempt: 1, procedure: "p", input: .null, pool: "default", priority: 0)
        }
        func queued(_ run: String, _ i: Int) -> [SchedulerCommand] {
            [.node(NodeChange(key: "n\(i)", status: .queued, attempt: 1)), .dispatch(task(run, i))]
        }
        batch.record("r1", (0..<7).flatMap { queued("r1", $0) })
        batch.record("r2", (0..<3).flatMap { queued("r2", $0) })
        batch.handledRequests = [3]
        batch.confirmedBatch = 9
        #expect(batch.chunks(maxCommands: 20).count == 1, "a batch within the limit stays whole")
        let parts = batch.chunks(maxCommands: 8)
        #expect(parts.map(\.commandCount) == [8, 8, 4], "cut only before a node's change, never between it and its dispatch")
        #expect(parts.map(\.order) == [["r1"], ["r1", "r2"], ["r2"]])
        #expect(parts[0].handledRequests == [3] && parts[0].confirmedBatch == 9)
        #expect(parts.dropFirst().allSatisfy { $0.handledRequests.isEmpty && $0.confirmedBatch == nil })
        #expect(parts.flatMap(\.publications) == batch.publications, "the same tasks, in the same order")
    }

    @Test func aBatchIsCutByBytesSoNoStatementNearsPostgreSQLsLimits() {
        // 140 nodes each queued with an 8 MiB input (one output injected 140 times): about 1.1 GB in one statement before.
        let big = JSON.string(String(repeating: "x", count: 8 << 20))
        var batch = PendingBatch()
        for i in 0..<140 {
            batch.record(
                "r1",
                [
                    .node(NodeChange(key: "n\(i)", status: .queued, attempt: 1, input: big)),
                    .dispatch(TaskDispatch(runID: "r1", key: "n\(i)", attempt: 1, procedure: "p", input: big, pool: "default", priority: 0)),
                ])
        }
        batch.record("r2", [.runStatus(.running, error: nil)])
        let limit = 64 << 20
        #expect(batch.chunks(maxCommands: 5_000).count == 1, "by count alone it is one statement")
        let parts = batch.chunks(maxCommands: 5_000, maxBytes: limit)
        #expect(parts.count > 1)
        for part in parts {
            let bytes = part.runs.flatMap(\.commands).reduce(0) { $0 + $1.estimatedBytes }
            #expect(bytes <= limit, "each piece stays within the bytes allowed")
        }
        #expect(parts.flatMap(\.publications) == batch.publications, "the same tasks, in the same order")
        #expect(parts.reduce(0) { $0 + $1.commandCount } == batch.commandCount)
        // One command larger than the limit is a piece of its own, never dropped.
        let alone = batch.chunks(maxCommands: 5_000, maxBytes: 1 << 20)
        #expect(alone.count == 141 && alone.reduce(0) { $0 + $1.commandCount } == batch.commandCount)
    }

    @Test func aBatchWithAdmissionChangesIsNeverCut() {
        var batch = PendingBatch()
        batch.hold(.told(runID: "r1", seq: 1))
        batch.record(
            "r1",
            (0..<6).map {
                .dispatch(TaskDispatch(runID: "r1", key: "n\($0)", attempt: 1, procedure: "p", input: .null, pool: "default", priority: 0))
            })
        #expect(batch.chunks(maxCommands: 2).count == 1)
    }

    /// Found by the simulator (seed 21, big outputs beside a rate-limited run): one run's hold kept the whole
    /// batch in one statement, over the statement limit, and the run of big outputs beside it failed for it.
    @Test func theRunsBesideAnAdmissionChangeAreStillCutByBytes() {
        let big = JSON.string(String(repeating: "x", count: 40 << 10))
        var batch = PendingBatch()
        batch.hold(.told(runID: "r1", seq: 1))
        batch.record("r1", [.node(NodeChange(key: "a", status: .queued, attempt: 1))])
        for i in 0..<8 {
            batch.record(
                "r2",
                [
                    .node(NodeChange(key: "n\(i)", status: .queued, attempt: 1, input: big)),
                    .dispatch(TaskDispatch(runID: "r2", key: "n\(i)", attempt: 1, procedure: "p", input: big, pool: "default", priority: 0)),
                ])
        }
        batch.handledRequests = [3]
        let limit = 96 << 10
        let parts = batch.chunks(maxCommands: 5_000, maxBytes: limit)
        #expect(parts.count > 2)
        #expect(parts[0].order == ["r1"] && parts[0].holdChanges == batch.holdChanges && parts[0].handledRequests == [3])
        #expect(parts.dropFirst().allSatisfy { $0.holdChanges.isEmpty && $0.handledRequests.isEmpty && $0.order == ["r2"] })
        for part in parts {
            #expect(part.runs.flatMap(\.commands).reduce(0) { $0 + $1.estimatedBytes } <= limit)
        }
        #expect(parts.flatMap(\.publications) == batch.publications, "the same tasks, in the same order")
        #expect(parts.reduce(0) { $0 + $1.commandCount } == batch.commandCount)
    }

    @Test func theAttemptsTakenFromALostWorkerAreItsLeaseExpiredEvents() {
        let commands: [SchedulerCommand] = [
            .event(key: "a", kind: .leaseExpired, detail: ["worker": "w1"]), .event(key: "a", kind: .log, detail: [:]),
            .node(NodeChange(key: "a", status: .queued, attempt: 2)), .event(key: "b", kind: .leaseExpired, detail: ["worker": "w1"]),
        ]
        #expect(LeaseTracker.reclaimed(commands) == 2)
        #expect(LeaseTracker.reclaimed([.event(key: "a", kind: .redelivered, detail: [:])]) == 0)
    }

    @Test func aDeadLetterIsCountedOnlyWhenItFailedItsNode() {
        let failed = NodeChange(key: "a", status: .failed, attempt: 1, event: .deadLettered)
        #expect(InboundIntake.failedByDeadLetter([.node(failed)]))
        let again: [SchedulerCommand] = [
            .event(key: "a", kind: .deadLetteredUnstarted, detail: [:]), .node(NodeChange(key: "a", status: .queued, attempt: 2)),
        ]
        #expect(!InboundIntake.failedByDeadLetter(again), "an attempt that never started goes out again")
    }
}
