import Baton
import BatonAMQP
import BatonStore
import Foundation

/// The faults a seed injects (`FaultKind`): drawn by `FaultMix` at a step, or under the uniform mix for
/// the kinds newer than it from streams of their own (`ownStreamFaults`), and the watches that check
/// what must hold around them.
extension ClusterSimulation {
    /// The `forged-report` fault: a report about a queued or running attempt, without its token (with
    /// one guessed when the coordinators accept reports without one, in an upgrade's window).
    func forge() {
        let open = submitted.flatMap { store.nodes(ofRun: $0.runID) }.filter { $0.status == .queued || $0.status == .running }
        guard !open.isEmpty else { return }
        let row = open[forgeRandom.index(open.count)]
        let partition = RunPartition.of(row.runID, count: options.partitions)
        let lenient = options.legacyWorkers > 0 || options.acceptUntokenedReports
        trace("FAULT " + forger.forge(row, partition: partition, now: clock.now, alwaysGuess: lenient, random: &forgeRandom))
        count(.forgedReport)
    }

    func count(_ fault: FaultKind) { report.faults[fault.rawValue, default: 0] += 1 }

    /// Injects a fault of `kind` (`FaultMix.draw` chose it); a kind that finds nothing to strike does nothing.
    func inject(_ kind: FaultKind) {
        broker.faultsReturning = true
        defer { broker.faultsReturning = false }
        switch kind {
        case .coordinatorCrash:
            let live = coordinators.filter(\.isUp)
            guard !live.isEmpty else { return }
            let c = live[random.index(live.count)]
            trace("FAULT \(c.name) crashes")
            c.crash(restartAfter: 5 + random.index(40))
        case .workerCrash:
            let live = workers.filter(\.isUp)
            guard live.count > 1 else { return }  // one stays up, or nothing would ever run
            let w = live[random.index(live.count)]
            trace("FAULT \(w.name) crashes")
            w.crash(restartAfter: 5 + random.index(60))
            blockWatch = nil
        case .connectionLost:
            let names = broker.connectionNames
            guard !names.isEmpty else { return }
            let name = names[random.index(names.count)]
            let keep = random.chance(0.5)
            trace("FAULT connection \(name) lost (unconfirmed publishes \(keep ? "arrive" : "lost"))")
            broker.drop(name, keepUnconfirmed: keep)
        case .publishFailsMidBatch:
            let names = broker.connectionNames.filter { $0.hasSuffix("-publish") || $0.hasSuffix("-reports") }
            guard !names.isEmpty else { return }
            let name = names[random.index(names.count)]
            let after = random.index(4)
            trace("FAULT a publish on \(name) fails after \(after) more")
            broker.failPublish(of: name, after: after, keepUnconfirmed: random.chance(0.5))
        case .commitFails:
            let failures: [(StoreFailure, String)] = [
                (.retry, "40001"), (.retry, "40P01"), (.retry, "53100"), (.retry, "57014"), (.retry, "55P03"),
                (.reconnect, "08006"), (.rejectData, "22023"), (.fatal, "42501"),
            ]
            let (failure, code) = failures[random.index(failures.count)]
            // A data error once: the batch fails and is split, and every part goes in (a second one could
            // fail a run's own part, which fails that run: right, but not what these graphs expect).
            let times = failure == .rejectData || failure == .fatal ? 1 : 1 + random.index(3)
            trace("FAULT the next \(times) commit(s) fail with SQLSTATE \(code)")
            store.failNext(.apply, with: failure, count: times, sqlState: code)
        case .duplicateDelivery:
            let held = broker.allUnacked
            guard !held.isEmpty else { return }
            let delivery = held[random.index(held.count)]
            trace("FAULT a delivery to \(delivery.connection) is given out again")
            broker.duplicate(delivery)
        case .delayedConfirms:
            confirmsHeldFor = 10 + random.index(100)
            trace("FAULT confirms held for \(confirmsHeldFor) steps")
        case .clockJump:
            let seconds = 1 + random.unit() * 20
            trace(String(format: "FAULT the clock jumps %.1f s", seconds))
            clock.advance(seconds)
        case .pausedProcess:
            let steps = 10 + random.index(200)
            if random.chance(0.5), let c = coordinators.filter(\.isUp).randomElement(using: &random) {
                trace("FAULT \(c.name) pauses for \(steps) steps")
                c.pausedFor = steps
            } else if let w = workers.filter(\.isUp).randomElement(using: &random) {
                trace("FAULT \(w.name) pauses for \(steps) steps")
                w.pausedFor = steps
                blockWatch = nil
            } else {
                return
            }
        case .leaseLapse:
            guard let owner = store.lapseLeases(ofOwnerOf: random.index(options.partitions)) else { return }
            trace("FAULT \(owner) stalls past its lease: its partitions are free")
        case .storeSessionsLost:
            trace("FAULT the database restarts: every session ends")
            store.dropConnections()
        case .blockedPublishers:
            if options.blockedPublishers && blockedFor == 0 { blockPublishers() }  // it counts itself
            return
        case .storeCut:
            if options.processCuts { cutFromStore() }
            return
        case .brokerCut:
            if options.processCuts { cutFromBroker() }
            return
        case .taskQueueLost:
            if options.queueLossRate > 0 { loseTaskQueue() }
            return
        case .forgedReport:
            forge()
            return
        }
        count(kind)
    }

    /// A task queue is deleted (its consumers cancelled) or purged, under load: one that holds tasks
    /// or has consumers, if any does.
    func loseTaskQueue() {
        let names = broker.taskQueueNames
        guard !names.isEmpty else { return }
        let name = names[lossRandom.index(names.count)]
        if lossRandom.chance(0.5) {
            trace("FAULT task queue \(name) deleted (\(broker.deleteQueue(name)) tasks lost)")
        } else {
            trace("FAULT task queue \(name) purged (\(broker.purge(name)) tasks lost)")
        }
        count(.taskQueueLost)
    }

    /// Under the uniform mix, the kinds newer than it, in the order they strike within a step: each is
    /// drawn from a stream of its own (which its strike also uses), at its own chance per step (0:
    /// off), so a seed runs as before them until their first strike, and a kind added here moves no
    /// other kind's draws. The swarm draws them from its mix as any other kind.
    var ownStreamFaults: [(kind: FaultKind, stream: ReferenceWritableKeyPath<ClusterSimulation, SeededRandom>, rate: Double)] {
        let each = options.faultRate / Double(FaultKind.uniformKinds.count)
        return [
            (.blockedPublishers, \.flowRandom, options.blockedPublishers && blockedFor == 0 ? options.faultRate / 12 : 0),
            (.taskQueueLost, \.lossRandom, options.queueLossRate),
            (.forgedReport, \.forgeRandom, each),
            (.storeCut, \.cutRandom, options.processCuts ? each / 2 : 0),
            (.brokerCut, \.cutRandom, options.processCuts ? each / 2 : 0),
        ]
    }

    // MARK: - Process cuts

    /// The kinds that can keep a coordinator from taking partitions in time (it crashed, paused, lost
    /// its sessions or its broker connections, or the clock jumped past a deadline), and how many struck so far.
    static let hinderingKinds: [FaultKind] = [
        .coordinatorCrash, .pausedProcess, .storeSessionsLost, .leaseLapse, .clockJump, .commitFails, .connectionLost,
        .publishFailsMidBatch, .storeCut, .brokerCut,
    ]
    var faultsStruck: Int { Self.hinderingKinds.reduce(0) { $0 + report.faults[$1.rawValue, default: 0] } }

    /// The `store-cut` fault: a coordinator (up or down) loses its network to the store, not to the
    /// broker, for 2 s to three partition leases.
    func cutFromStore() {
        let free = coordinators.filter { c in !cuts.contains { $0.link == .store && $0.coordinator == c.index && $0.healed == nil } }
        guard !free.isEmpty else { return }
        let c = free[cutRandom.index(free.count)]
        let process = "coordinator-\(c.index)"
        let held = store.partitionLeases().filter { $0.owner?.hasPrefix(process + ".") == true && ($0.secondsLeft ?? 0) > 0 }.map(\.partition)
        let seconds = 2 + cutRandom.unit() * 3 * partitionLease
        storeSessions.cut.insert(c.index)
        store.sever(storeSessions.sessions(of: c.index))
        count(.storeCut)
        cuts.append(
            ProcessCut(
                link: .store, process: process, coordinator: c.index, began: clock.now, until: clock.now.addingTimeInterval(seconds),
                noticeAt: clock.now, held: held, faultsBefore: faultsStruck))
        trace(String(format: "FAULT %@ is cut off from the store for %.1f s (it held partitions %@)", process, seconds, "\(held)"))
    }

    /// The `broker-cut` fault: a coordinator or a worker loses its network to the broker, not to the
    /// store; the broker notices after 1 to 20 s (its heartbeat timeout), and the network heals after 2 s
    /// to three leases.
    func cutFromBroker() {
        let processes = coordinators.map { "coordinator-\($0.index)" } + workers.map { "worker-\($0.index)" }
        let free = processes.filter { p in !cuts.contains { $0.link == .broker && $0.process == p && $0.healed == nil } }
        guard !free.isEmpty else { return }
        let process = free[cutRandom.index(free.count)]
        let seconds = 2 + cutRandom.unit() * 3 * partitionLease
        let notice = min(seconds, 1 + cutRandom.unit() * 19)
        broker.cut(process + ".")
        count(.brokerCut)
        cuts.append(
            ProcessCut(
                link: .broker, process: process, coordinator: nil, began: clock.now, until: clock.now.addingTimeInterval(seconds),
                noticeAt: clock.now.addingTimeInterval(notice), held: [], faultsBefore: faultsStruck))
        trace(String(format: "FAULT %@ is cut off from the broker for %.1f s (noticed after %.1f s)", process, seconds, notice))
        if process.hasPrefix("worker-") { blockWatch = nil }  // its silence is the cut's, not a block's
    }

    /// A worker cut off from the broker now, or healed less than a lease ago: its lease may run out
    /// for the cut, whatever the broker's flow control does.
    var aWorkerIsSilencedByACut: Bool {
        cuts.contains { cut in
            cut.link == .broker && cut.process.hasPrefix("worker-")
                && (cut.healed.map { clock.now.timeIntervalSince($0) < coordinatorLease } ?? true)
        }
    }

    /// What must hold around the cuts, checked after every step, and their ends. A coordinator cut
    /// off from the store holds no partition (as the store sees it) once its lease ran out; another
    /// coordinator holds each of its partitions soon after; healed, it holds a partition again. The
    /// liveness checks (taken over, taken back) are excused by any other fault in their window or a
    /// step with no coordinator able to act. Nothing runs twice beyond at-least-once, and a worker cut
    /// off from the broker costs nothing but redelivery: the checks of every step say so.
    func checkCuts() {
        let now = clock.now
        broker.faultsReturning = true  // what the broker returns as it notices or heals a cut is the cut's doing
        defer { broker.faultsReturning = false }
        for index in cuts.indices.reversed() {
            var cut = cuts[index]
            var done = false
            if cut.healed == nil {
                if cut.link == .broker && !cut.noticed && now >= cut.noticeAt {
                    let keep = cutRandom.chance(0.5)
                    let gone = broker.noticeCut(cut.prefix, keepUnconfirmed: keep)
                    trace("the broker notices that \(cut.process)'s \(gone) connection(s) are gone")
                    cut.noticed = true
                }
                if cut.link == .store { watchStoreCut(&cut, now: now) }
                if now >= cut.until {
                    heal(&cut, now: now)
                    done = cut.link == .broker
                }
            } else {
                done = watchTakeBack(&cut, now: now)
            }
            if done { cuts.remove(at: index) } else { cuts[index] = cut }
        }
    }

    /// Once faults stop, cuts heal soon, so that the runs end in fewer steps: a coordinator cut off from
    /// the store whose takeover is still watched (not excused) once that check is done, any other at once.
    func shortenCuts() {
        for index in cuts.indices where cuts[index].healed == nil {
            let cut = cuts[index]
            let watched = cut.link == .store && !cut.takeoverChecked && !cut.excused
            let soon = watched ? cut.began.addingTimeInterval(ProcessCut.takeoverDeadline(lease: partitionLease) + 0.5) : clock.now
            cuts[index].until = min(cut.until, soon)
        }
    }

    /// Whether some coordinator other than `index` is up, not paused and not cut off from the store.
    private func anotherCoordinatorAble(than index: Int) -> Bool {
        coordinators.contains { c in
            c.index != index && c.isUp && c.pausedFor == 0 && !storeSessions.cut.contains(c.index)
        }
    }

    private func watchStoreCut(_ cut: inout ProcessCut, now: Date) {
        let index = cut.coordinator!
        let elapsed = now.timeIntervalSince(cut.began)
        let leases = store.partitionLeases()
        if elapsed > ProcessCut.lossDeadline(lease: partitionLease) {
            let still = leases.filter { $0.owner?.hasPrefix(cut.prefix) == true && ($0.secondsLeft ?? 0) > 0 }.map(\.partition)
            if !still.isEmpty {
                checker.violate(
                    String(
                        format: "%@ is cut off from the store, but holds partitions %@ %.1f s later (lease %.0f s)", cut.process, "\(still)",
                        elapsed, partitionLease))
            }
        }
        guard !cut.takeoverChecked else { return }
        if faultsStruck > cut.faultsBefore || !anotherCoordinatorAble(than: index) { cut.excused = true }
        guard elapsed > ProcessCut.takeoverDeadline(lease: partitionLease) else { return }
        cut.takeoverChecked = true
        guard !cut.excused else { return }
        let orphans = cut.held.filter { part in
            !leases.contains { $0.partition == part && $0.owner != nil && $0.owner?.hasPrefix(cut.prefix) == false && ($0.secondsLeft ?? 0) > 0 }
        }
        if orphans.isEmpty {
            trace("\(cut.process) is still cut off from the store; others hold its partitions \(cut.held)")
        } else {
            checker.violate(
                String(
                    format: "%@ is cut off from the store, and %.1f s later no other coordinator holds its partitions %@", cut.process,
                    elapsed, "\(orphans)"))
        }
    }

    private func heal(_ cut: inout ProcessCut, now: Date) {
        switch cut.link {
        case .store:
            let index = cut.coordinator!
            storeSessions.cut.remove(index)
            store.heal(storeSessions.sessions(of: index))
        case .broker:
            broker.healCut(cut.prefix)
        }
        cut.healed = now
        cut.excused = false
        cut.faultsAtHeal = faultsStruck
        cut.faultsMetAtHeal = store.faultsMet
        trace("\(cut.process)'s network to \(cut.link.rawValue) heals")
    }

    /// Healed, a coordinator cut off from the store holds a partition again in time; true when the
    /// watch is over.
    private func watchTakeBack(_ cut: inout ProcessCut, now: Date) -> Bool {
        let index = cut.coordinator!
        let c = coordinators[index]
        let holds = store.partitionLeases().contains { $0.owner?.hasPrefix(cut.prefix) == true && ($0.secondsLeft ?? 0) > 0 }
        if holds {
            trace("\(cut.process), healed, holds partitions again")
            return true
        }
        // Failures scheduled before the heal that no call met then (commits failing while every coordinator was
        // cut off pile up) strike after it, when calls meet them: a peer holding the partitions retries its commit
        // for as long (seed 870). They excuse the watch as a fault struck after the heal does.
        let met = store.faultsMet > cut.faultsMetAtHeal
        if faultsStruck > cut.faultsAtHeal || met || !c.isUp || c.pausedFor > 0 { cut.excused = true }
        if cut.excused { return true }
        let elapsed = now.timeIntervalSince(cut.healed!)
        guard elapsed > ProcessCut.takeBackDeadline(lease: partitionLease) else { return false }
        checker.violate(String(format: "%@ was cut off from the store; healed %.1f s ago, it holds no partition again", cut.process, elapsed))
        return true
    }

    // MARK: - Flow control

    /// The newest event's id (0: none yet).
    var lastEventID: Int64 { store.tables.events.values.compactMap { $0.last?.id }.max() ?? 0 }

    /// The workers up now whose lease ran out in an event written after `id`. A worker that died (its
    /// generation gone) is rightly re-run, however late its lease runs out after a block (seed 8421).
    func liveWorkersExpired(after id: Int64) -> [String] {
        let live = Set(workers.filter(\.isUp).map(\.name))
        return store.tables.events.values.flatMap { rows in
            rows.filter { $0.id > id && $0.eventKind == .leaseExpired }.compactMap { row -> String? in
                guard case let .string(worker)? = row.detail["worker"], live.contains(worker) else { return nil }
                return worker
            }
        }
    }

    /// The broker blocks every publisher for a while, longer than a lease now and then.
    func blockPublishers() {
        blockedFor = 100 + flowRandom.index(900)
        broker.blocksPublishers = "low on memory"
        if blockWatch == nil && !aWorkerIsSilencedByACut { blockWatch = (lastEventID, nil) }
        trace("FAULT the broker blocks publishers for \(blockedFor) steps")
        count(.blockedPublishers)
    }

    func unblockPublishers() {
        blockedFor = 0
        broker.blocksPublishers = nil
        // The coordinators hold expiry for half a lease after they see the block end.
        blockWatch?.until = clock.now.addingTimeInterval(coordinatorLease / 2)
        trace("the broker takes publishes again")
    }

    /// Nothing is re-run because the broker blocked publishers: no lease runs out during a block, nor in
    /// the grace after it.
    func checkBlockWatch() {
        guard let watch = blockWatch else { return }
        let expired = liveWorkersExpired(after: watch.since)
        if !expired.isEmpty {
            checker.violate(
                "a lease expired while the broker blocked publishers (or within the grace after): an attempt of \(expired.sorted().joined(separator: ", ")), alive, was re-run"
            )
        }
        if let until = watch.until, clock.now >= until { blockWatch = nil }
    }
}
