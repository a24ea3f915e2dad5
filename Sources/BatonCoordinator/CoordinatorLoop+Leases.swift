import Baton
import BatonAMQP
import Foundation

/// Worker leases: heartbeats heard and recorded, and the attempts of workers silent past the lease
/// sent out again (`LeaseTracker` decides).
extension CoordinatorLoop {
    /// A heartbeat from the coordinator's own queue renews the worker's lease; one from the shared
    /// queue is recorded (`baton workers`, the procedures' schemas) by whichever coordinator reads it.
    func handleHeartbeat(_ body: [UInt8], shared: BrokerReceipt?) {
        let beat: WorkerHeartbeat
        do { beat = try WorkerHeartbeat(decoding: body) } catch {
            logger.warning("ignored a heartbeat: \(error)")
            return
        }
        if let shared {
            pending.heartbeats.append(beat)
            pending.heartbeatsReceipt = shared
            return
        }
        if metrics != nil { watch(beat) }
        if let holding = beat.holding, !beat.stopping {
            reconciler.held(
                holding.prefix(WorkerHeartbeat.holdingLimit).map { .init(runID: $0.runID, key: $0.key, attempt: $0.attempt) },
                interval: beat.interval, at: now())
        }
        if beat.stopping {
            leases.stopped(beat.id)
            logger.info("worker \(beat.id) stopped")
        } else {
            leases.heard(beat.id, at: now())
        }
    }

    /// Workers silent for longer than the lease lose what they run: it goes out again as new attempts.
    /// Silent on this coordinator's own queue, that is: a worker whose heartbeats the database recorded
    /// within the lease is alive (a worker from before partitions sends them to the shared queue only,
    /// which the coordinators read in turn), and keeps its lease from its last recorded heartbeat.
    func expireLeases() throws {
        let flow = try broker.flow()
        let blocked = flow.blocked
        if (blocked != nil) != (leases.blockedSince != nil) {
            if let blocked {
                logger.warning("the broker blocks publishers (\(blocked)): no worker's lease runs out until it stops")
            } else {
                logger.notice("the broker takes publishes again: leases run out again after \(Int(leases.graceAfterBlock)) s of grace")
            }
        }
        leases.brokerFlow(flow, at: now())
        metrics?.brokerBlocked(blocked != nil)
        var lost = leases.expired(at: now())
        if !lost.isEmpty, let store {
            let checked = now()
            for row in try store.liveWorkers(within: leases.lease) where lost.contains(row.id) {
                leases.heard(row.id, at: checked.addingTimeInterval(-row.secondsSinceSeen))
                lost.removeAll { $0 == row.id }
            }
        }
        for worker in lost {
            var taken = 0
            for id in Array(runs.keys).sorted() {
                let commands = runs[id]!.handle(
                    .workerLost(worker: worker), at: now(), random: configuration.random, tokens: configuration.attemptTokens)
                taken += LeaseTracker.reclaimed(commands)
                record(id, commands)
            }
            // A worker that stopped with nothing in hand (or whose tasks the broker already gave to
            // another) leaves nothing to say.
            if taken > 0 {
                logger.warning(
                    "worker \(worker) missed its lease (\(Int(configuration.lease)) s without a heartbeat); re-dispatching \(taken) attempt(s)")
            }
        }
    }
}
