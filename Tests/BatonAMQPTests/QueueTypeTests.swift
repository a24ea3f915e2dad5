import Testing

@testable import BatonAMQP

@Suite("QueueType and PriorityBand: queue names, routing keys and arguments of classic and quorum queues")
struct QueueTypeTests {
    @Test("classic: one queue per pool and procedure, every priority in it")
    func classicHasOneBand() {
        #expect(QueueType.classic.bands == [PriorityBand.all])
        for priority in 0...9 {
            #expect(BatonTopology.routingKey(pool: "p", procedure: "a.b", priority: priority, queueType: .classic) == "p:a.b")
        }
        #expect(QueueType.classic.taskQueueArguments["x-max-priority"] == .int(9))
        #expect(QueueType.classic.taskQueueArguments["x-queue-type"] == nil)
    }

    @Test("quorum: bands 0-2, 3-6 and 7-9, each with its queue; the lowest keeps the classic name")
    func quorumBands() {
        let keys = (0...9).map { BatonTopology.routingKey(pool: "p", procedure: "a.b", priority: $0, queueType: .quorum) }
        #expect(keys == ["p:a.b", "p:a.b", "p:a.b", ":3:p:a.b", ":3:p:a.b", ":3:p:a.b", ":3:p:a.b", ":7:p:a.b", ":7:p:a.b", ":7:p:a.b"])
        let queues = QueueType.quorum.bands.map { $0.queue(pool: "p", procedure: "a.b") }
        #expect(queues == ["baton.tasks.p:a.b", "baton.tasks:3.p:a.b", "baton.tasks:7.p:a.b"])
        // Every band's routing key leads back to its queue.
        for band in QueueType.quorum.bands {
            #expect(BatonTopology.taskQueue(routingKey: band.routingKey(pool: "p", procedure: "a.b")) == band.queue(pool: "p", procedure: "a.b"))
        }
        let arguments = QueueType.quorum.taskQueueArguments
        #expect(arguments["x-queue-type"] == .string("quorum"))
        #expect(arguments["x-max-priority"] == nil)
        #expect(arguments["x-delivery-limit"] == .int(Int64(QueueType.deliveryLimit)))
    }

    @Test("a band's names cannot be another pool's or procedure's")
    func bandNamesDoNotCollide() {
        // A pool cannot hold ':', so no lowest band's key starts with one; no lowest band's queue starts `baton.tasks:`.
        let other = PriorityBand(lowest: 3)
        #expect(other.routingKey(pool: "p", procedure: "x").hasPrefix(":"))
        #expect(!PriorityBand.all.queue(pool: "p", procedure: ":3:x").hasPrefix("baton.tasks:"))
    }

    @Test("quorum consumers each take a share of the prefetch, at least two (one with --prefetch 1); classic shares one")
    func consumerPrefetch() {
        #expect(QueueType.classic.consumerPrefetch(4, queues: 3) == nil)
        #expect(QueueType.quorum.consumerPrefetch(4, queues: 3) == 2)
        #expect(QueueType.quorum.consumerPrefetch(12, queues: 3) == 4)
        #expect(QueueType.quorum.consumerPrefetch(4, queues: 48) == 2)
        #expect(QueueType.quorum.consumerPrefetch(1, queues: 3) == 1)
    }

    @Test("an unknown type is one line naming it")
    func unknownType() {
        #expect(QueueType.problem("quorum") == nil)
        #expect(QueueType.problem("stream") == "unknown queue type 'stream' (use classic or quorum)")
    }
}
