/// How long a supervisor waits before starting a process that ended again: half a second
/// after a process that ran for a while, doubling (up to `maximum`) while it keeps ending
/// within `healthyAfter` seconds of its start, so a worker that dies at once (a bad
/// configuration, a crash on start-up) is not restarted in a tight loop. A value, one per slot.
public struct RestartPolicy: Sendable, Equatable {
    public var initial = 0.5
    public var maximum = 30.0
    public var healthyAfter = 10.0
    /// Ends in a row, per slot, each within `healthyAfter` of its start.
    private var quickEnds: [Int: Int] = [:]

    public init() {}

    /// The process of `slot` ended after running `seconds`: the delay before it is started again.
    public mutating func ended(slot: Int, after seconds: Double) -> Double {
        if seconds >= healthyAfter {
            quickEnds[slot] = 0
            return initial
        }
        let count = quickEnds[slot, default: 0]
        quickEnds[slot] = count + 1
        return min(maximum, initial * Double(1 << min(count, 20)))
    }
}
