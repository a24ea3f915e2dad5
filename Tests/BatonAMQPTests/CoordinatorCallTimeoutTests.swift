import BatonAMQP
import Testing

/// Each connect, handshake and RPC of the coordinator's AMQP connections gives up within half a
/// partition lease, so a broker cut off cannot hold the coordinator past its partitions' lease.
struct CoordinatorCallTimeoutTests {
    @Test(arguments: [(4.0, 2.0), (10, 5), (60, 10), (0.5, 1)])
    func aCallGivesUpWithinHalfTheLease(_ lease: Double, _ expected: Double) {
        let timeout = AMQPCoordinatorBroker.callTimeout(silence: lease)
        #expect(timeout == expected)
        #expect(lease < 2 || timeout <= lease / 2)
    }
}
