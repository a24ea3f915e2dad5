import BatonAMQP
import Foundation
import Testing

@testable import BatonSimulation

/// The simulator with quorum queues: seeds pass with every guarantee and the quorum ones checked,
/// `mixed` runs both types, and a broker or worker that gets quorum queues wrong is caught.
@Suite("baton-sim with quorum queues", .serialized)
struct QuorumSimulationTests {
    /// The short form with quorum queues: band queues, the queues' own delivery counts and limit,
    /// a task that kills its workers in every seed.
    @Test func theQuorumShortFormPasses() async throws {
        let result = try await SimulatorTests.sim(["--seeds", "30", "--first-seed", "3000", "--steps", "1500", "--queue-type", "quorum"])
        #expect(result.status == 0, "\(result.stdout.suffix(3_000))")
        let summary = try #require(result.stdout.split(separator: "\n").last)
        #expect(summary.hasPrefix("seeds 30, quorum 30 (band choices "), "\(summary)")
        #expect(!summary.contains("(band choices 0)"), "workers chose among bands: \(summary)")
        #expect(summary.hasSuffix("violations 0"), "\(summary)")
    }

    /// The default (`mixed`, as deploy/local/test.sh runs it) gives some seeds of each type.
    @Test func mixedRunsBothTypes() async throws {
        let result = try await SimulatorTests.sim(["--seeds", "12", "--first-seed", "1", "--steps", "300"])
        #expect(result.status == 0, "\(result.stdout.suffix(3_000))")
        let summary = try #require(result.stdout.split(separator: "\n").last)
        let quorum = summary.split(separator: " ").dropFirst(3).first.flatMap { Int($0) } ?? -1
        #expect(quorum > 0 && quorum < 12, "\(summary)")
        #expect(SimulationQueueType.mixed.queueType(seed: 5) == SimulationQueueType.mixed.queueType(seed: 5))
    }

    /// Runs seeds in process, on a thread of their own (the simulator blocks on its procedures).
    static func simulate(_ seeds: ClosedRange<UInt64>, _ options: SimulationOptions) async -> [SimulationReport] {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: seeds.map { ClusterSimulation(seed: $0, options: options).run() }) }
            thread.stackSize = 16 << 20
            thread.start()
        }
    }

    /// Quorum queues broken on purpose (`MemoryQuorumDefect`) break the quorum invariants:
    /// - a queue that does not count: redeliveries carry no count, and workers republish to count;
    /// - a queue without its delivery limit, under workers whose own limit is higher: the task that
    ///   kills its workers is delivered past x-delivery-limit and its dead letter says so;
    /// - tasks whose own priority says the opposite of their band: the worker's `SlotQueue` starts
    ///   a lower band while it holds a higher one, as a wrong order in it would.
    @Test(arguments: [
        (MemoryQuorumDefect.uncounted, "the queue does not count its returns"),
        (MemoryQuorumDefect.unlimited, "beyond its queue's x-delivery-limit 20"),
        (MemoryQuorumDefect.invertedPriorities, "ready to run"),
    ])
    func aBrokenQuorumQueueIsCaught(defect: MemoryQuorumDefect, expected: String) async throws {
        var options = SimulationOptions()
        options.queueType = .quorum
        options.steps = 1_500
        options.quorumDefects = [defect]
        options.quorumWorkerLimit = 50
        options.faultMix = .uniform  // the seeds' schedules from before the swarm
        options.processCuts = false  // nor the kinds and graphs added since
        options.bigOutputs = false
        let reports = await Self.simulate(1...6, options)
        let caught = reports.filter { $0.violations.contains { $0.contains(expected) } }
        #expect(!caught.isEmpty, "no seed caught \(defect): \(reports.map { $0.violations.first ?? "passed" })")
    }

    /// A task that kills its worker counts a delivery against every task that worker held, and a
    /// quorum worker holds up to two per queue (`QueueType.consumerPrefetch`, 16 procedures x 3 bands
    /// here), so the tasks taken along with the poison go round with it and reach the delivery limit
    /// with it. One that never started goes out again as a new attempt (`RunState+DeadLetters`): seeds
    /// 32 and 37 failed a run that way before (node `flaky`, dead-lettered while queued); each then
    /// dispatched such an attempt again and passed. The catalog has had a rate graph since, which
    /// draws other runs, and workers keep their connections through blocks since: seed 8 is the first
    /// that now dispatches such an attempt again (of the first 80: 8, 15, 17, 27, 32, 40, 58 pass so).
    @Test func theTasksHeldBesideAPoisonTaskGoOutAgain() async {
        var options = SimulationOptions()
        options.queueType = .quorum
        options.steps = 1_500
        options.poisonAmongOthers = true
        options.signals = false  // the schedule that found it, without the signal graphs (which change every seed's draws)
        options.pauses = false  // nor the pauses
        options.faultMix = .uniform  // and with the fault mix of before the swarm
        options.processCuts = false  // nor the kinds and graphs added since
        options.bigOutputs = false
        options.fairShares = false  // nor the fair graph
        let reports = await Self.simulate(8...8, options)
        for report in reports {
            #expect(report.passed, "seed \(report.seed): \(report.violations)")
            #expect(report.unstartedDeadLetters > 0, "seed \(report.seed) dispatched no dead-lettered attempt again")
        }
    }

    /// Known limitation: a task that was running beside the poison (in another slot of the worker it
    /// kills) started, so the coordinator cannot tell it from the poison, and it is dead-lettered with
    /// it, its node failed, as before. Seeds 3 and 4 (delivery limit 10) show it; no node that failed
    /// so says it never started.
    @Test func aPoisonTaskTakesTheTasksRunningBesideItAlong() async {
        var options = SimulationOptions()
        options.queueType = .quorum
        options.quorumWorkerLimit = 10
        options.poisonAmongOthers = true
        options.signals = false  // the schedules that show it, without the signal graphs
        options.pauses = false  // nor the pauses
        options.faultMix = .uniform  // and with the fault mix of before the swarm
        options.processCuts = false  // nor the kinds and graphs added since
        options.bigOutputs = false
        let reports = await Self.simulate(2...4, options)
        let lost = reports.compactMap { report in report.violations.first { $0.contains("ended failed") && $0.contains("dead-lettered") } }
        #expect(!lost.contains { $0.contains("never started") }, "\(lost)")
        withKnownIssue("tasks running beside a task that kills its workers are dead-lettered with it") {
            #expect(lost.isEmpty, "\(lost)")
        }
    }

    /// Without a defect the same seeds pass in process as well.
    @Test func theSameSeedsPassUnbroken() async {
        var options = SimulationOptions()
        options.queueType = .quorum
        options.steps = 1_500
        options.quorumWorkerLimit = 50
        options.faultMix = .uniform
        options.processCuts = false  // nor the kinds and graphs added since
        options.bigOutputs = false
        let reports = await Self.simulate(1...3, options)
        let failed = reports.filter { !$0.passed }.map { "seed \($0.seed): \($0.violations[0])" }
        #expect(failed.isEmpty, "\(failed)")
    }
}
