import Foundation

/// A RabbitMQ resource alarm raised on the suite's own cluster (`--rabbit-cluster`): alarms are
/// broker-global and block every publisher of the cluster, so the suite never raises one on a
/// broker it shares. A memory alarm sets the high watermark near zero, a disk alarm the free-disk
/// limit above the free space; clearing restores the values rabbit-cluster.sh configures.
final class BrokerAlarm: @unchecked Sendable {
    enum Kind: String {
        case memory, disk
        var raise: [String] { self == .memory ? ["set_vm_memory_high_watermark", "0.0000001"] : ["set_disk_free_limit", "1000000GB"] }
        var clear: [String] { self == .memory ? ["set_vm_memory_high_watermark", "0.4"] : ["set_disk_free_limit", "50MB"] }
    }

    let kind: Kind
    /// deploy/local/rabbit-cluster.sh.
    let script: String
    /// The cluster node (1 to 3) it is set on.
    let node: Int
    private let lock = NSLock()
    private var isRaised = false

    init(_ kind: Kind, script: String, node: Int) {
        self.kind = kind
        self.script = script
        self.node = node
    }

    /// Raises the alarm; true if rabbitmqctl did.
    func raise() -> Bool {
        lock.withLock { isRaised = true }  // before: a signal meanwhile clears it
        return run(kind.raise, "raise")
    }

    /// Clears it if raised (also from the suite's cleanup, on any thread).
    @discardableResult
    func clear() -> Bool {
        guard
            lock.withLock({ () -> Bool in
                defer { isRaised = false }; return isRaised
            })
        else { return true }
        return run(kind.clear, "clear")
    }

    private func run(_ arguments: [String], _ verb: String) -> Bool {
        let result = Command.run(["/bin/bash", script, "ctl", "\(node)"] + arguments)
        if !result.succeeded { say("could not \(verb) the \(kind.rawValue) alarm on node \(node): \(result.stderr)") }
        return result.succeeded
    }
}
