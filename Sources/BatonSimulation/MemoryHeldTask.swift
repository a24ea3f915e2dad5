import Baton
import BatonAMQP

/// A task a worker took from its `MemoryWorkerTaskBroker` (`receive`) and has not acked, rejected
/// or published again yet: what the worker holds, as far as the broker can tell, for the
/// simulator's priority-band check.
public struct MemoryHeldTask: Sendable {
    public let tag: UInt64
    /// The message as the broker delivered it (its priority the one the coordinator published with).
    public let message: MemoryMessage
    /// The task it carries (nil if malformed).
    public let task: TaskDispatch?
    /// The worker started it (`SimulatedExecutor` said so).
    public internal(set) var started = false

    /// The priority band of the queue it came from.
    public var band: PriorityBand { QueueType.quorum.band(of: Int(message.priority ?? 0)) }
}
