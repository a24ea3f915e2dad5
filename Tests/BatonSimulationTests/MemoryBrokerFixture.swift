import BatonAMQP

@testable import BatonSimulation

/// Small helpers for the MemoryBroker tests: a broker with a coordinator and workers connected.
struct MemoryBrokerFixture {
    let broker = MemoryBroker()
    let coordinator: MemoryCoordinatorBroker

    init(prefetch: Int = 10, queueType: QueueType = .classic) throws {
        coordinator = broker.coordinatorConnection(name: "coordinator")
        try coordinator.connect(prefetch: prefetch, partitions: 1, silence: 10, queueType: queueType)
        try coordinator.consume(partitions: [0])
    }

    /// A worker consuming `procedures` of pool `p`.
    func worker(_ name: String, procedures: [String] = ["a"], prefetch: Int = 10, consume: Bool = true) throws -> MemoryWorkerTaskBroker {
        let worker = broker.workerTasks(name: name)
        try worker.connect(pools: ["p"], procedures: procedures, prefetch: prefetch, consume: consume)
        return worker
    }

    /// Publishes tasks and lets them arrive.
    @discardableResult
    func publish(_ bodies: [String], procedure: String = "a", priority: UInt8 = 0) throws -> [UInt64] {
        let numbers = try bodies.map {
            try coordinator.publishTask(pool: "p", procedure: procedure, body: Array($0.utf8), priority: priority, queuedAt: nil)
        }
        broker.deliverConfirms()
        return numbers
    }

    static let queue = BatonTopology.taskQueue(pool: "p", procedure: "a")
}

extension WorkerTaskBroker {
    /// Everything the worker can receive now.
    func drain() throws -> [WorkerInbound] {
        var all: [WorkerInbound] = []
        while let next = try receive(timeout: 0, wakeup: nil) { all.append(next) }
        return all
    }

    /// The tasks it can receive now.
    func drainTasks() throws -> [InboundTask] {
        try drain().compactMap {
            if case .task(let task) = $0 { return task }
            return nil
        }
    }
}

extension CoordinatorBroker {
    func drain() throws -> [CoordinatorInbound] {
        var all: [CoordinatorInbound] = []
        while let next = try receive(timeout: 0, confirmsDue: false) { all.append(next) }
        return all
    }
}

extension InboundTask {
    var text: String { String(decoding: body, as: UTF8.self) }
}

extension MemoryMessage {
    var text: String { String(decoding: body, as: UTF8.self) }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
