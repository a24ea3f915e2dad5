import BatonCoordinator
import BatonSimulation
import BatonStore
import Foundation
import Testing

/// One coordinator on the store and broker twins and a virtual clock (its pauses move the clock),
/// with a 10 s partition lease, that already holds every one of 4 partitions: the start of the
/// tests of what keeps its leases renewed.
struct LeasedCoordinator {
    let clock = SimulationClock()
    let store: MemoryStore
    let broker = MemoryBroker()
    let coordinator: SteppedCoordinator
    /// A second session of the store, to read the leases as another process does.
    let reader: any CoordinatorStore

    init() throws {
        let clock = clock
        store = MemoryStore(clock: { clock.now })
        store.setPartitionCount(4)
        var configuration = CoordinatorConfiguration(databaseURL: "memory", amqpURL: "memory", batchSize: 20, pollInterval: 2)
        configuration.id = "coordinator-a"
        configuration.partitionLease = 10
        configuration.makeStore = { [store] in try store.connect() }
        configuration.makeBroker = { [broker] in broker.coordinatorConnection(name: "coordinator-a") }
        configuration.clock = { clock.now }
        configuration.pause = { seconds, _ in
            clock.advance(seconds)
            return false
        }
        coordinator = SteppedCoordinator(configuration: configuration)
        for _ in 0..<5 {
            #expect(coordinator.turn() == nil)
            broker.deliverConfirms()
            clock.advance(0.5)
        }
        reader = try store.connect()
        #expect(try reader.partitionLeases().allSatisfy { $0.owner == "coordinator-a" })
    }
}
