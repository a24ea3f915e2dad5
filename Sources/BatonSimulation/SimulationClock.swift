import Foundation

/// The simulation's virtual time: it moves only when the simulator moves it.
public final class SimulationClock: @unchecked Sendable {
    // Safe: the simulator is single-threaded; procedures that read it run while it waits.
    private(set) public var now: Date

    public init(start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { now = start }

    public func advance(_ seconds: Double) { if seconds > 0 { now = now.addingTimeInterval(seconds) } }

    public func advance(to date: Date) { if date > now { now = date } }
}
