import BatonAMQP
import Foundation

@testable import BatonSimulation

/// One side of the broker contract: RabbitMQ through the real adapters (`BATON_AMQP_URL`), or a
/// `MemoryBroker`. Each backend is fresh for its test: its own pool and procedure on RabbitMQ.
struct BrokerContractBackend {
    /// The contract's vhosts, beside `BATON_AMQP_URL`'s, made fresh by the test with `services.sh vhost`:
    /// `-contract` (not the integration tests' own: their coordinators consume the same result queues,
    /// and took this suite's reports), and `-quorum` for quorum queues (a vhost's result queues are of one type).
    static func url(quorum: Bool) -> String {
        let base = ProcessInfo.processInfo.environment["BATON_AMQP_URL"] ?? "amqp://guest:guest@127.0.0.1:5672/baton-test"
        return base + (quorum ? "-quorum" : "-contract")
    }

    let name: String
    let coordinator: any CoordinatorBroker
    let tasks: (String) -> any WorkerTaskBroker
    let reports: (String) -> any WorkerReportBroker
    /// Publishes reach their queues and are confirmed (the memory broker's network; RabbitMQ's is real).
    let settle: () -> Void
    /// How long a receive waits for something that should come.
    let wait: Double
    /// The pool and procedure of this test's tasks.
    let pool: String
    let procedure = "contract"

    /// Makes the contract's vhosts (`deploy/local/services.sh vhost NAME --fresh`: a vhost guest may use), once each.
    static let classicVhost = makeVhost(quorum: false)
    static let quorumVhost = makeVhost(quorum: true)

    private static func makeVhost(quorum: Bool) -> Result<Void, BrokerContractSetupError> {
        let vhost = String(url(quorum: quorum).split(separator: "/").last ?? "")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("deploy/local/services.sh").path, "vhost", vhost, "--fresh"]
        do {
            try process.run()
            process.waitUntilExit()
        } catch { return .failure(BrokerContractSetupError(message: "services.sh vhost \(vhost): \(error)")) }
        return process.terminationStatus == 0 ? .success(()) : .failure(BrokerContractSetupError(message: "services.sh vhost \(vhost) failed"))
    }

    /// The real adapters on RabbitMQ, connected as a coordinator of one partition.
    static func rabbit(queueType: QueueType = .classic) throws -> BrokerContractBackend {
        try (queueType == .quorum ? quorumVhost : classicVhost).get()
        let url = url(quorum: queueType == .quorum)
        let coordinator = AMQPCoordinatorBroker(url: url)
        try coordinator.connect(prefetch: 50, partitions: 1, silence: 10, queueType: queueType)
        try coordinator.consume(partitions: [0])
        _ = try drain(coordinator)  // what an earlier run left
        return BrokerContractBackend(
            name: "rabbitmq", coordinator: coordinator,
            tasks: { AMQPWorkerTaskBroker(url: url, connectionName: $0, heartbeatSeconds: 10) },
            reports: { AMQPWorkerReportBroker(url: url, connectionName: $0) }, settle: {}, wait: 2,
            pool: "p" + UUID().uuidString.prefix(8).lowercased())
    }

    /// A new `MemoryBroker`, connected as a coordinator of one partition.
    static func memory(queueType: QueueType = .classic) throws -> BrokerContractBackend {
        let broker = MemoryBroker(queueType: queueType)
        let coordinator = broker.coordinatorConnection(name: "coordinator")
        try coordinator.connect(prefetch: 50, partitions: 1, silence: 10, queueType: queueType)
        try coordinator.consume(partitions: [0])
        return BrokerContractBackend(
            name: "memory", coordinator: coordinator, tasks: { broker.workerTasks(name: $0) }, reports: { broker.workerReports(name: $0) },
            settle: { broker.deliverConfirms() }, wait: 0, pool: "memorypool")
    }

    /// A worker consuming this test's procedure.
    func worker(_ name: String, prefetch: Int = 10) throws -> any WorkerTaskBroker {
        let worker = tasks(name)
        try worker.connect(pools: [pool], procedures: [procedure], prefetch: prefetch, consume: true)
        return worker
    }

    /// Publishes tasks, confirmed; returns their sequence numbers.
    func publish(_ bodies: [String], priority: UInt8 = 0) throws -> [UInt64] {
        let numbers = try bodies.map {
            try coordinator.publishTask(pool: pool, procedure: procedure, body: Array($0.utf8), priority: priority, queuedAt: nil)
        }
        settle()
        try coordinator.waitForConfirms(timeout: 5)
        return numbers
    }

    /// The next `count` tasks `worker` receives (fewer if they do not come within the wait, or within
    /// half a second when none should come).
    func tasks(_ count: Int, of worker: any WorkerTaskBroker, noneDue: Bool = false) throws -> [InboundTask] {
        var got: [InboundTask] = []
        let deadline = Date().addingTimeInterval(noneDue ? min(wait, 0.5) : max(wait, 0.01) * 2)
        while got.count < count, Date() < deadline {
            settle()
            switch try worker.receive(timeout: wait == 0 ? 0 : 0.2, wakeup: nil) {
            case .task(let task): got.append(task)
            case nil: if wait == 0 { return got }
            default: continue
            }
        }
        return got
    }

    /// The next `count` messages the coordinator receives (fewer if they do not come within the wait,
    /// or within half a second when none should come).
    func inbound(_ count: Int, noneDue: Bool = false) throws -> [CoordinatorInbound] {
        var got: [CoordinatorInbound] = []
        let deadline = Date().addingTimeInterval(noneDue ? min(wait, 0.5) : max(wait, 0.01) * 2)
        while got.count < count, Date() < deadline {
            settle()
            if let next = try coordinator.receive(timeout: wait == 0 ? 0 : 0.2, confirmsDue: false) {
                got.append(next)
            } else if wait == 0 {
                return got
            }
        }
        return got
    }

    static func drain(_ coordinator: any CoordinatorBroker) throws -> Int {
        var count = 0
        while let next = try coordinator.receive(timeout: 0.3, confirmsDue: false) {
            count += 1
            switch next {
            case .report(_, let receipt), .deadLetter(_, _, _, let receipt): try coordinator.ack(through: receipt)
            case .unrouted(_, _, let receipt): try coordinator.ack(receipt)
            case .heartbeat(_, let shared): if let shared { try coordinator.ack(through: shared) }
            }
        }
        return count
    }
}

/// The broker contract's setup could not make what it needs.
struct BrokerContractSetupError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
