import Foundation

/// A one-way flag that blocking loops check and can wait on with a deadline.
public final class StopSignal: @unchecked Sendable {
    // Safe: every access to `stopped` holds `condition`'s lock.
    private let condition = NSCondition()
    private var stopped = false

    public init() {}

    public var isSet: Bool {
        condition.lock(); defer { condition.unlock() }
        return stopped
    }

    public func set() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits up to `seconds`; returns true if the signal was set meanwhile.
    @discardableResult
    public func wait(_ seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock(); defer { condition.unlock() }
        while !stopped { if !condition.wait(until: deadline) { break } }
        return stopped
    }
}
