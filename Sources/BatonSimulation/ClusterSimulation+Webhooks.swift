import Foundation

/// Webhook delivery in a seed (`SimulationOptions.webhooks`, `WebhookSimulation`).
extension ClusterSimulation {
    /// Coordinator `c`'s delivery step: its records if its answers are in, else a claim and its posts.
    func deliverWebhooks(_ c: SimulatedCoordinator) {
        webhooks?.act(
            c.index, name: c.name, store: store, cut: storeSessions.cut.contains(c.index), faults: faultsOn, trace: { [self] in trace($0) })
    }

    /// After the heal: time runs on, with every coordinator taking turns and delivering, until no
    /// delivery is pending (each ends by its give-up age) or a bound past the last one's give-up passed.
    func drainWebhooks() {
        guard let webhooks else { return }
        let turn = WebhookSimulation.turn
        let newest = store.tables.deliveries.values.map(\.row.createdAt).max() ?? 0
        let bound = Date(timeIntervalSince1970: max(clock.now.timeIntervalSince1970, newest + turn.policy.giveUpAfter) + 2 * turn.lease + 20)
        var pending: Bool {
            webhooks.inFlight.contains { coordinators[$0.key].name == $0.value.coordinator }
                || store.tables.deliveries.values.contains { $0.row.state == "pending" }
        }
        while pending && clock.now < bound {
            step += 1
            clock.advance(0.25)
            restartWhatIsDue()
            // Cuts heal here; whether a healed coordinator takes partitions back is watched in the steps, not
            // in this phase (with more coordinators than partitions it may rightly hold none).
            for i in cuts.indices { cuts[i].excused = true }
            checkCuts()
            broker.deliverConfirms()
            for c in coordinators where c.isUp && c.pausedFor == 0 {
                guard let process = c.process else { continue }
                if clock.now >= process.resumeAt, let stopped = process.turn() {
                    trace("\(c.name) stops: \(stopped.message)")
                    c.crash(restartAfter: 20)
                    continue
                }
                if webhooks.canAct(c.index, name: c.name, now: clock.now) { deliverWebhooks(c) }
            }
        }
        // What a dead process still held was never recorded.
        for flight in webhooks.inFlight.values { webhooks.explained.formUnion(flight.claimed.map(\.id)) }
    }
}
