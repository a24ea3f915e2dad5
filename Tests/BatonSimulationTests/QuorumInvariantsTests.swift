import Baton
import BatonAMQP
import BatonStore
import Foundation
import Testing

@testable import BatonSimulation

/// The quorum queues' checks catch what they are for, each fed the observation that breaks it.
@Suite("QuorumInvariants")
struct QuorumInvariantsTests {
    static let queue = "baton.tasks.default:baton.sleep"

    static func delivery(id: Int, count: Int?, priority: UInt8 = 0, body: [UInt8] = []) -> MemoryDelivery {
        var message = InvariantCheckerTests.message(id: id, publisher: "coordinator-0.1-publish", exchange: "baton.tasks", routingKey: "", body: body)
        message.deliveryCount = count
        return MemoryDelivery(connection: "worker-0.1-tasks", channel: 1, tag: 1, queue: queue, message: message)
    }

    @Test func aRedeliveryWithoutTheQueuesCountIsCaught() {
        var quorum = QuorumInvariants(workerLimit: 10)
        #expect(quorum.delivered(Self.delivery(id: 1, count: nil)).isEmpty)
        #expect(quorum.delivered(Self.delivery(id: 1, count: 1)).isEmpty)
        let uncounted = quorum.delivered(Self.delivery(id: 1, count: nil))
        #expect(uncounted.first?.contains("the queue does not count its returns") == true, "\(uncounted)")
        let counted = quorum.delivered(Self.delivery(id: 2, count: 3))
        #expect(counted.first?.contains("delivery 1 carries x-delivery-count 3") == true, "a first delivery carries no count: \(counted)")
    }

    @Test func aDeliveryBeyondTheQueuesLimitIsCaught() {
        var quorum = QuorumInvariants(workerLimit: 50)
        for n in 0...QueueType.deliveryLimit {
            #expect(quorum.delivered(Self.delivery(id: 7, count: n == 0 ? nil : n)).isEmpty)
        }
        let beyond = quorum.delivered(Self.delivery(id: 7, count: QueueType.deliveryLimit + 1))
        #expect(beyond.first?.contains("delivered 22 times, beyond its queue's x-delivery-limit 20") == true, "\(beyond)")
    }

    @Test func aWorkerThatRepublishesToCountIsCaught() {
        let task = TaskDispatch(runID: "r", key: "a", attempt: 1, procedure: "baton.echo", input: [:], pool: "default", priority: 0)
        let copy = MemoryMessage(
            id: 9, publisher: "worker-0.1-tasks", exchange: "baton.tasks", routingKey: "default:baton.echo", body: task.encoded(),
            persistent: true, priority: 0, deliveries: 2, queuedAt: nil, redelivered: false, deathQueue: nil)
        let broken = QuorumInvariants(workerLimit: 10).confirmed(copy)
        #expect(broken.first?.contains("republished its task counting 2 deliveries itself") == true, "\(broken)")
    }

    static func held(_ key: String, runID: String, priority: Int, tag: UInt64) -> MemoryHeldTask {
        let task = TaskDispatch(runID: runID, key: key, attempt: 1, procedure: "baton.sleep", input: [:], pool: "default", priority: priority)
        var message = InvariantCheckerTests.message(id: Int(tag), publisher: "c", exchange: "baton.tasks", routingKey: "", body: task.encoded())
        message = MemoryMessage(
            id: message.id, publisher: "c", exchange: "baton.tasks", routingKey: "", body: message.body, persistent: true,
            priority: UInt8(priority), deliveries: nil, queuedAt: nil, redelivered: false, deathQueue: nil)
        return MemoryHeldTask(tag: tag, message: message, task: task)
    }

    @Test func aLowerBandStartedWhileAHigherOneWaitsIsCaught() throws {
        let (store, connection, runs) = try InvariantCheckerTests.submitted("mutex")
        let id = runs[0].runID
        try InvariantCheckerTests.apply(
            connection, id,
            [
                .runStatus(.running, error: nil), .node(NodeChange(key: "m1", status: .queued, attempt: 1, input: [:])),
                .node(NodeChange(key: "m2", status: .queued, attempt: 1, input: [:])),
            ])
        var low = Self.held("m1", runID: id, priority: 1, tag: 1)
        low.started = true
        let high = Self.held("m2", runID: id, priority: 8, tag: 2)
        var quorum = QuorumInvariants(workerLimit: 10)
        let broken = quorum.started(low, holding: [low, high], worker: "worker-0.1", store: store)
        #expect(broken.first?.contains("while it held node m2 attempt 1") == true, "\(broken)")
        #expect(quorum.started(high, holding: [low, high], worker: "worker-0.1", store: store).isEmpty, "a higher band first is right")

        try InvariantCheckerTests.apply(connection, id, [.node(NodeChange(key: "m2", status: .cancelled, attempt: 1, error: "cancelled"))])
        #expect(
            quorum.started(low, holding: [low, high], worker: "worker-0.1", store: store).isEmpty,
            "a held task whose node ended is not ready (the worker reports it cancelled instead)")
    }

    @Test(arguments: [
        ("the task was dead-lettered after 10 deliveries without a result", 10, true),
        ("the task was dead-lettered after 21 deliveries without a result", 50, true),
        ("the task was dead-lettered after 4 deliveries without a result", 10, false),
        ("the task was dead-lettered after 22 deliveries without a result", 50, false),
        ("failed for another reason", 10, false),
    ])
    func aPoisonTaskMustBeDeadLetteredWithinTheLimits(error: String, workerLimit: Int, passes: Bool) throws {
        let store = MemoryStore()
        let graph = SimulationGraph.poison
        let id = store.submit(try GraphDecoder().decode(graph.document))
        try InvariantCheckerTests.apply(
            try store.connect(), id, [.node(NodeChange(key: "poison", status: .failed, attempt: 1, error: error))])
        let broken = QuorumInvariants(workerLimit: workerLimit).finish(store: store, runID: id, graph: graph)
        #expect(broken.isEmpty == passes, "\(broken)")
    }
}
