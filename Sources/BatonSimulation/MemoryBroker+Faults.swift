import Baton
import BatonAMQP

/// What the simulator decides: when publishes arrive and are confirmed, and which faults happen.
/// A `name` is a connection's own name or its handle's (which covers all of the handle's connections);
/// nil means every live connection.
extension MemoryBroker {
    private func live(_ name: String?) -> [MemoryConnection] {
        guard let name else { return connections.filter { !$0.severed } }
        return connections.filter { $0.answers(to: name) && !$0.severed }
    }

    /// Cuts the network between the broker and one process: every connection whose handle's name
    /// starts with `prefix` (such as `worker-2.`). Its client's calls fail as a lost connection and
    /// its new connections are refused, but the broker holds the old ones, their unacked deliveries
    /// and consumers (which still take deliveries nobody receives), until it notices (`noticeCut`,
    /// its heartbeat timeout). Publishes in flight on them neither arrive nor are confirmed meanwhile.
    public func cut(_ prefix: String) {
        cutOff.insert(prefix)
        for connection in connections where connection.owner.hasPrefix(prefix) { connection.severed = true }
    }

    /// The broker notices that the connections cut off under `prefix` are gone (its heartbeat timed
    /// out): they end as with `drop` (publishes in flight arrive if `keepUnconfirmed`). Returns how many.
    @discardableResult
    public func noticeCut(_ prefix: String, keepUnconfirmed: Bool) -> Int {
        let gone = connections.filter { $0.severed && $0.owner.hasPrefix(prefix) }
        for connection in gone { disconnect(connection, keepUnconfirmed: keepUnconfirmed) }
        return gone.count
    }

    /// The network is back under `prefix`: connections cut off and not noticed yet end now (their
    /// clients gave them up), and the process may connect again.
    public func healCut(_ prefix: String) {
        noticeCut(prefix, keepUnconfirmed: false)
        cutOff.remove(prefix)
    }

    /// Publishes in flight reach their queues (and consumers), without being confirmed yet.
    public func deliverPublishes(of name: String? = nil) {
        for connection in live(name) {
            for channel in connection.channels { arrive(channel) }
        }
        dispatch()
    }

    /// Publishes in flight reach their queues, and every publish so far is confirmed.
    public func deliverConfirms(of name: String? = nil) {
        for connection in live(name) {
            for channel in connection.channels { confirm(channel) }
        }
        dispatch()
    }

    /// The connections answering to `name` are lost: their unacked deliveries go back to their
    /// queues (redelivered), their control queues go, and their handles' calls throw
    /// `.connectionLost`. Publishes in flight arrive (but are never confirmed) if `keepUnconfirmed`,
    /// else they are lost. Returns how many connections were dropped.
    @discardableResult
    public func drop(_ name: String, keepUnconfirmed: Bool) -> Int {
        let dropped = live(name)
        for connection in dropped { disconnect(connection, keepUnconfirmed: keepUnconfirmed) }
        return dropped.count
    }

    /// After `successes` more publishes on the connection answering to `name`, the next one throws
    /// `.connectionLost` and the connection is dropped (as with `drop`): a publish that fails in
    /// the middle of a batch. Aimed at the live connection(s), or else the next one opened.
    public func failPublish(of name: String, after successes: Int, keepUnconfirmed: Bool) {
        let targets = live(name)
        guard !targets.isEmpty else {
            pendingPublishFailures.append((name: name, after: successes, keepUnconfirmed: keepUnconfirmed))
            return
        }
        for connection in targets {
            connection.publishesBeforeFailure = successes
            connection.failureKeepsUnconfirmed = keepUnconfirmed
        }
    }

    /// The broker gives `delivery` out again (a copy back at its place in its queue, redelivered)
    /// while the first copy stays unacked. False if that delivery is no longer held unacked.
    @discardableResult
    public func duplicate(_ delivery: MemoryDelivery) -> Bool {
        for connection in connections where connection.name == delivery.connection {
            for channel in connection.channels where channel.number == delivery.channel {
                if let held = channel.unacked.first(where: { $0.tag == delivery.tag }) {
                    requeue(held)
                    dispatch()
                    return true
                }
            }
        }
        return false
    }

    /// The broker restarts: every connection is lost (as with `drop`), then transient messages
    /// (heartbeats, cancel signals) are gone; durable queues and persistent messages stay.
    public func restart(keepUnconfirmed: Bool) {
        for connection in connections { disconnect(connection, keepUnconfirmed: keepUnconfirmed) }
        for queue in queues { queue.removeTransient() }
    }

    /// Empties `queue` of its ready messages (what the heartbeats' expiry does to heartbeats nobody
    /// consumed, which the twin does not model by itself); returns how many went.
    @discardableResult
    public func purge(_ queue: String) -> Int {
        guard let target = queuesByName[queue] else { return 0 }
        let count = target.ready.count
        target.removeAll()
        return count
    }

    /// An operator (or a policy, or a lost disk) deletes `queue` (`rabbitmqctl delete_queue`): its
    /// ready messages and bindings go, and each of its consumers is cancelled (RabbitMQ's
    /// `basic.cancel`, which a client that advertises `consumer_cancel_notify` is told of; here it
    /// waits in the consumer's connection). Deliveries it gave out stay unacked with their
    /// consumers; one returned later is lost. Returns how many ready messages went.
    @discardableResult
    public func deleteQueue(_ queue: String) -> Int {
        guard let target = queuesByName[queue] else { return 0 }
        let count = target.ready.count
        for consumer in target.consumers where consumer.connection.alive {
            consumer.connection.cancelled.append(MemoryConnection.Cancelled(channel: consumer.channel.number, queue: queue))
        }
        target.consumers = []
        target.removeAll()
        removeQueue(target)
        for (key, name) in taskBindings where name == queue { taskBindings[key] = nil }
        return count
    }

    /// The task queues (`BatonTopology.tasksExchange` prefixed), in the order declared.
    public var taskQueueNames: [String] { queues.map(\.name).filter { $0.hasPrefix(BatonTopology.tasksExchange + ".") } }

    /// Whether a copy of attempt `attempt` of node `key` of run `runID` is anywhere in the broker:
    /// ready in a queue, delivered and not acked, or published and not arrived yet.
    public func holdsTask(runID: String, key: String, attempt: Int) -> Bool {
        func matches(_ message: MemoryMessage) -> Bool {
            guard message.exchange == BatonTopology.tasksExchange, let task = try? TaskDispatch(decoding: message.body) else { return false }
            return task.runID == runID && task.key == key && task.attempt == attempt
        }
        if queues.contains(where: { queue in queue.ready.contains { matches($0.message) } }) { return true }
        return connections.contains { connection in
            connection.channels.contains { channel in
                channel.unacked.contains { matches($0.message) } || channel.inFlight.contains { matches($0.message) }
            }
        }
    }
}
