import ArgumentParser
import BatonSimulation
import Foundation

/// `baton-sim`: whole clusters in one process on a virtual clock, seed after seed, with faults,
/// checking Baton's guarantees after every step.
@main
struct SimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baton-sim",
        abstract:
            "Simulate whole Baton clusters (coordinators, workers, store and broker twins) under seeded faults, checking the guarantees after every step."
    )

    @Option(help: "Replay this one seed, printing every step.") var seed: UInt64?
    @Option(help: "How many seeds to run (from --first-seed on).") var seeds = 100
    @Option(help: "The first seed of --seeds.") var firstSeed: UInt64 = 1
    @Option(help: "Steps with faults per seed (then the cluster runs without faults until every run ended).") var steps = 2_000
    @Option(help: "Runs submitted per seed.") var runs = 6
    @Option(help: "The chance of a fault at each step (the swarm's average).") var faultRate = 0.02
    @Option(
        help:
            "swarm: each seed draws its own chance for each fault kind (some off, some frequent); uniform: every kind shares --fault-rate evenly, as before the swarm."
    )
    var faultMix = SimulationFaultMix.swarm
    @Option(help: "Coordinators per cluster, sharing the partitions.") var coordinators = 3
    @Option(help: "Partitions of the simulated schema.") var partitions = 8
    @Option(help: "Workers (of 3) that publish as workers from before partitions did, as during an upgrade.") var legacyWorkers = 0
    @Option(help: "The broker's queues: classic, quorum, or mixed (each seed draws one).")
    var queueType = SimulationQueueType.mixed
    @Flag(help: "With quorum queues, put the task that kills its workers in the default pool, among the others' tasks.")
    var poisonAmongOthers = false
    @Flag(
        inversion: .prefixedNo,
        help:
            "Now and then the broker blocks publishers (a memory or disk alarm), checking that nothing is re-run for it (--no-blocked-publishers: never, as before that fault existed)."
    )
    var blockedPublishers = true
    @Flag(help: "Add a schedule firing every second (catch-up all) and check each due time fired exactly once, none missed.")
    var schedules = false
    @Flag(
        help:
            "Register webhooks and deliver their events to a simulated receiver (2xx, 5xx, time-outs, late answers, lost records), checking the outbox, claims, attempts and back-off."
    )
    var webhooks = false
    @Flag(
        inversion: .prefixedNo,
        help: "Half the seeds also wait for signals sent at random moments (--no-signals: none do, as before signals existed).")
    var signals = true
    @Flag(
        inversion: .prefixedNo,
        help: "Half the seeds also pause and resume procedures, pools and runs at random moments (--no-pauses: none do, as before pauses existed).")
    var pauses = true
    @Flag(
        inversion: .prefixedNo,
        help: "Now and then a task queue is deleted or purged under load (--no-queue-loss: never, as before that fault existed).")
    var queueLoss = true
    @Flag(
        inversion: .prefixedNo,
        help:
            "Now and then a coordinator is cut off from the store alone, or a process from the broker alone, and heals later (--no-process-cuts: never)."
    )
    var processCuts = true
    @Flag(
        inversion: .prefixedNo,
        help:
            "Half the seeds submit a graph of big outputs injected into many nodes, under a small memory budget (--no-big-outputs: none do)."
    )
    var bigOutputs = true
    @Flag(
        inversion: .prefixedNo,
        help:
            "Workers serve version 1 or 2 of sim.version and a third of the seeds submit nodes pinned on each (--no-versions: as before versions)."
    )
    var versions = true
    @Flag(
        inversion: .prefixedNo,
        help: "Beside the catalog, seeds submit a graph whose fair keys compete for shares (--no-fair-shares: as before fair shares)."
    )
    var fairShares = true
    @Flag(help: "Coordinators do not look for queued nodes whose task the broker lost (shows the stranded queue the fix prevents).")
    var noReconcile = false
    @Option(help: "The coordinators' --commit-bytes, in bytes (the statement limit is 262144).") var commitBytes = 96 << 10
    @Option(help: "Stop after this many seconds of real time, with a summary of the seeds run (0: no limit).") var timeLimit = 0.0

    func validate() throws {
        guard steps >= 1 else { throw ValidationError("--steps must be at least 1") }
        guard seeds >= 1 else { throw ValidationError("--seeds must be at least 1") }
        guard runs >= 1, runs <= 200 else { throw ValidationError("--runs must be from 1 to 200") }
        guard faultRate >= 0, faultRate <= 1 else { throw ValidationError("--fault-rate must be from 0 to 1") }
        guard coordinators >= 1, coordinators <= 16 else { throw ValidationError("--coordinators must be from 1 to 16") }
        guard partitions >= 1, partitions <= 1024 else { throw ValidationError("--partitions must be from 1 to 1024") }
        guard legacyWorkers >= 0, legacyWorkers <= 3 else { throw ValidationError("--legacy-workers must be from 0 to 3") }
        guard commitBytes >= 1_024 else { throw ValidationError("--commit-bytes must be at least 1024") }
    }

    func run() throws {
        DeterministicHashing.require()
        var options = SimulationOptions()
        options.steps = steps
        options.runs = runs
        options.faultRate = faultRate
        options.faultMix = faultMix
        options.coordinators = coordinators
        options.partitions = partitions
        options.legacyWorkers = legacyWorkers
        options.queueType = queueType
        options.poisonAmongOthers = poisonAmongOthers
        options.blockedPublishers = blockedPublishers
        options.schedules = schedules
        options.webhooks = webhooks
        options.signals = signals
        options.pauses = pauses
        if !queueLoss { options.queueLossRate = 0 }
        options.reconcileLostTasks = !noReconcile
        options.processCuts = processCuts
        options.bigOutputs = bigOutputs
        options.versions = versions
        options.fairShares = fairShares
        options.commitBytes = commitBytes
        if let seed {
            options.keepTrace = true
            let report = ClusterSimulation(seed: seed, options: options).run()
            for line in report.trace { print(line) }
            var summary = SimulationSummary()
            summary.add(report)
            print(summary.line)
            if !report.passed {
                print("fault mix: \(report.faultMix)")
                for line in report.violations { print("violation: \(line)") }
                throw ExitCode(1)
            }
            return
        }
        var summary = SimulationSummary()
        let started = Date()
        for s in firstSeed..<(firstSeed + UInt64(seeds)) {
            if timeLimit > 0 && Date().timeIntervalSince(started) > timeLimit { break }
            let report = ClusterSimulation(seed: s, options: options).run()
            summary.add(report)
            if !report.passed {
                print("seed \(s) (\(report.queueType.rawValue) queues) broke a guarantee: \(report.violations[0])")
                print("fault mix: \(report.faultMix)")
                print("last steps (replay with: \(replay(s, report))):")
                for line in report.trace.suffix(options.traceTail) { print("  " + line) }
                print(summary.line)
                throw ExitCode(1)
            }
        }
        print(summary.line)
    }

    /// The command that replays seed `s` as it ran.
    func replay(_ s: UInt64, _ report: SimulationReport) -> String {
        "baton-sim --seed \(s) --steps \(steps) --runs \(runs) --fault-rate \(faultRate) --fault-mix \(faultMix.rawValue)"
            + " --coordinators \(coordinators) --partitions \(partitions) --legacy-workers \(legacyWorkers)"
            + " --queue-type \(report.queueType.rawValue)\(poisonAmongOthers ? " --poison-among-others" : "")"
            + "\(schedules ? " --schedules" : "")\(webhooks ? " --webhooks" : "")\(signals ? "" : " --no-signals")\(pauses ? "" : " --no-pauses")"
            + "\(queueLoss ? "" : " --no-queue-loss")\(noReconcile ? " --no-reconcile" : "")\(blockedPublishers ? "" : " --no-blocked-publishers")"
            + "\(processCuts ? "" : " --no-process-cuts")\(bigOutputs ? "" : " --no-big-outputs")\(versions ? "" : " --no-versions")"
            + "\(fairShares ? "" : " --no-fair-shares")"
            + "\(commitBytes == SimulationOptions().commitBytes ? "" : " --commit-bytes \(commitBytes)")"
    }
}
