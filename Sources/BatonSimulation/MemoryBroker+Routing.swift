import Baton
import BatonAMQP

/// Where messages go: routing through the exchanges, pushing to consumers, returning what a lost
/// connection held.
extension MemoryBroker {
    /// Declares a queue unless it exists (declaring is idempotent, as on RabbitMQ).
    @discardableResult
    func declareQueue(
        _ name: String, prioritized: Bool = false, deadLettered: Bool = false, durable: Bool = true, owner: Int? = nil,
        deliveryLimit: Int? = nil
    )
        -> MemoryQueue
    {
        if let queue = queuesByName[name] { return queue }
        let queue = MemoryQueue(
            name: name, prioritized: prioritized, deadLettered: deadLettered, durable: durable, owner: owner, deliveryLimit: deliveryLimit)
        queues.append(queue)
        queuesByName[name] = queue
        return queue
    }

    /// What `BatonTopology.declareCommon` declares.
    func declareCommon() {
        declareQueue(BatonTopology.deadLettersQueue)
        declareQueue(BatonTopology.resultsQueue, deadLettered: true)
        declareQueue(BatonTopology.heartbeatsQueue)
    }

    /// What `BatonTopology.declarePartitionQueues` declares (bound by name: `route` finds them).
    func declarePartitionQueues(_ partitions: Int) {
        for partition in 0..<partitions { declareQueue(BatonTopology.resultsQueue(partition: partition), deadLettered: true) }
    }

    /// What `BatonTopology.declareTaskQueues` declares for queues of `queueType` (one per band,
    /// named and bound as there, lowest band first); returns their names.
    @discardableResult
    func declareTaskQueues(pool: String, procedure: String, queueType: QueueType) -> [String] {
        queueType.bands.map { band in
            let routingKey = BatonTopology.routingKey(pool: pool, procedure: procedure, priority: band.lowest, queueType: queueType)
            let name = BatonTopology.taskQueue(routingKey: routingKey)
            switch queueType {
            case .classic: declareQueue(name, prioritized: true, deadLettered: true)
            case .quorum: declareQueue(name, deadLettered: true, deliveryLimit: QueueType.deliveryLimit)
            }
            taskBindings[routingKey] = name
            return name
        }
    }

    /// What `BatonTopology.declareTaskQueue` declares (classic); returns the queue's name.
    @discardableResult
    func declareTaskQueue(pool: String, procedure: String) -> String {
        declareTaskQueues(pool: pool, procedure: procedure, queueType: .classic)[0]
    }

    func removeQueue(_ queue: MemoryQueue) {
        queues.removeAll { $0 === queue }
        queuesByName[queue.name] = nil
        heartbeatQueues.remove(queue.name)
    }

    /// Puts a message that arrived at `exchange` into the queues it is bound to (none: it is dropped).
    func route(_ message: MemoryMessage) {
        switch message.exchange {
        case "":
            if let queue = queuesByName[message.routingKey] { enqueue(message, in: queue) }
        case BatonTopology.tasksExchange:
            if let name = taskBindings[message.routingKey], let queue = queuesByName[name] {
                enqueue(message, in: queue)
            } else if message.mandatory, let publisher = connections.first(where: { $0.name == message.publisher }) {
                publisher.returned.append(message)  // basic.return: no queue is bound for it
            }
        case BatonTopology.reportsExchange:
            if let queue = queuesByName[BatonTopology.resultsQueue(partition: Int(message.routingKey) ?? -1)] { enqueue(message, in: queue) }
        case BatonTopology.controlExchange:
            for queue in queues where queue.owner != nil && !heartbeatQueues.contains(queue.name) { enqueue(message, in: queue) }
        case BatonTopology.heartbeatsExchange:
            for queue in queues where heartbeatQueues.contains(queue.name) || queue.name == BatonTopology.heartbeatsQueue {
                enqueue(message, in: queue)
            }
        case BatonTopology.deadExchange:
            if let queue = queuesByName[BatonTopology.deadLettersQueue] { enqueue(message, in: queue) }
        default:
            break
        }
    }

    func enqueue(_ message: MemoryMessage, in queue: MemoryQueue) {
        queue.insert(message, order: nextOrder)
        nextOrder += 1
    }

    /// A message rejected without requeue from `queue`: to the dead-letter exchange if the queue has one.
    func deadLetter(_ message: MemoryMessage, from queue: String) {
        guard queuesByName[queue]?.deadLettered == true else { return }
        route(
            MemoryMessage(
                id: message.id, publisher: message.publisher, exchange: BatonTopology.deadExchange, routingKey: message.routingKey,
                body: message.body, persistent: message.persistent, priority: message.priority, deliveries: message.deliveries,
                queuedAt: message.queuedAt, redelivered: false, deathQueue: message.deathQueue ?? queue,
                deliveryCount: message.deliveryCount))
    }

    /// A delivery back to its place in its queue, flagged redelivered (lost if the queue is gone). A
    /// quorum queue counts the return, and dead-letters a message returned more than its limit.
    func requeue(_ unacked: MemoryChannel.Unacked) {
        var message = unacked.message
        message.redelivered = true
        guard let queue = queuesByName[unacked.queue] else { return }
        if let limit = queue.deliveryLimit {
            guard !settled.contains(message.id), !queue.holds(message.id) else { return }
            let count = (returns[message.id] ?? 0) + 1
            returns[message.id] = count
            if faultsReturning { faultReturns[message.id, default: 0] += 1 }
            if count > limit && !quorumDefects.contains(.unlimited) {
                noteDeadLetter(message)
                message.deliveryCount = count - 1  // its last delivery's: the coordinator counts that delivery too
                settle(message.id, in: queue)
                deadLetter(message, from: queue.name)
                return
            }
        }
        queue.insert(message, order: unacked.order)
    }

    /// `message` is dead-lettered past a delivery limit (the queue's, or a worker's own): if every
    /// return of it so far was an injected fault's, the faults alone reached the limit.
    func noteDeadLetter(_ message: MemoryMessage) {
        guard let returned = returns[message.id], faultReturns[message.id] == returned,
            let task = try? TaskDispatch(decoding: message.body)
        else { return }
        deadLetteredByFaults.append((task.runID, task.key))
    }

    /// A delivery from `queue` was acked or dead-lettered: in a quorum task queue, the message is
    /// done with (its other copies go).
    func settle(_ id: Int, in queue: MemoryQueue) {
        guard queue.deliveryLimit != nil else { return }
        settled.insert(id)
        queue.remove(id)
    }

    /// Publishes of `channel` in flight reach their queues.
    func arrive(_ channel: MemoryChannel) {
        guard blocksPublishers == nil else { return }
        let inFlight = channel.inFlight
        channel.inFlight = []
        for publish in inFlight {
            route(publish.message)
            dispatch()  // consumers get messages in the order they arrive
        }
    }

    /// Publishes of `channel` reach their queues and are confirmed.
    func confirm(_ channel: MemoryChannel) {
        guard blocksPublishers == nil else { return }
        arrive(channel)
        channel.confirmedThrough = channel.published
        let confirmed = channel.awaitingConfirm
        channel.awaitingConfirm = []
        for message in confirmed { onConfirm?(message) }
    }

    /// Ends `connection`: publishes in flight arrive (`keepUnconfirmed`) or are lost, unacked
    /// deliveries return to their queues in order, its consumers and exclusive queues go.
    func disconnect(_ connection: MemoryConnection, keepUnconfirmed: Bool) {
        guard connection.alive else { return }
        connection.alive = false
        connections.removeAll { $0 === connection }
        for channel in connection.channels {
            if keepUnconfirmed { arrive(channel) } else { channel.inFlight = [] }
            channel.awaitingConfirm = []  // never confirmed now
            let unacked = channel.unacked
            channel.unacked = []
            for delivery in unacked { requeue(delivery) }
        }
        connection.inbox = []
        for queue in queues {
            queue.consumers.removeAll { $0.connection === connection }
            queue.nextConsumer = 0
        }
        for queue in queues where queue.owner == connection.id { removeQueue(queue) }
        dispatch()
    }

    /// Pushes ready messages to consumers with room, one queue after another (from a start that
    /// moves on each time) and one message per queue per round, until none can take more.
    func dispatch() {
        guard !queues.isEmpty else { return }
        let start = dispatchStart % queues.count
        dispatchStart = start + 1
        let order = Array(queues[start...] + queues[..<start])
        var moved = true
        while moved {
            moved = false
            for queue in order where deliverOne(from: queue) { moved = true }
        }
    }

    /// Sends the head of `queue` to its next consumer with room, round-robin; false if it cannot.
    private func deliverOne(from queue: MemoryQueue) -> Bool {
        guard !queue.ready.isEmpty, !queue.consumers.isEmpty else { return false }
        let count = queue.consumers.count
        for step in 0..<count {
            let index = (queue.nextConsumer + step) % count
            let consumer = queue.consumers[index]
            guard consumer.canTake else { continue }
            queue.nextConsumer = (index + 1) % count
            let entry = queue.removeFirst()
            var message = entry.message
            if queue.deliveryLimit != nil, !quorumDefects.contains(.uncounted) { message.deliveryCount = returns[message.id] }
            let channel = consumer.channel
            let tag = channel.nextTag
            channel.nextTag += 1
            if !consumer.noAck {
                channel.unacked.append(MemoryChannel.Unacked(tag: tag, queue: queue.name, order: entry.order, message: message))
                onDeliver?(
                    MemoryDelivery(connection: consumer.connection.name, channel: channel.number, tag: tag, queue: queue.name, message: message))
            }
            consumer.connection.inbox.append(MemoryConnection.Inbound(channel: channel.number, tag: tag, message: message))
            return true
        }
        return false
    }
}
