import Foundation

/// A clock for `LocalEngine` that tests control, so hour-long back-offs, repeat waits, delays and
/// timeouts take no real time. The scheduler reads no clock of its own (time comes with each event),
/// so with a `TestClock` the real scheduler runs exactly as it would, at virtual times.
///
/// - `.automatic`: whenever no attempt is running and only timers remain, the clock jumps to the
///   next due time at once. Attempts themselves run in real time, at a frozen virtual time.
/// - `.manual`: time moves only when the test calls `advance(by:)` or `advance(to:)`;
///   `nextWakeUp()` waits until the engine has nothing to do but wait for a timer.
public final class TestClock: @unchecked Sendable {
    public enum Mode: Sendable { case automatic, manual }

    public let mode: Mode
    // Safe: every mutable field is read and written under `lock`.
    private let lock = NSLock()
    private var current: Date
    private var listeners: [UUID: @Sendable () -> Void] = [:]
    /// What the engine waits for while idle: a due time, or nil once the run has ended. Unset while busy.
    private var idle: Date??
    private var idleWaiters: [CheckedContinuation<Date?, Never>] = []

    /// The default start, a fixed instant so virtual timestamps are the same on every run.
    public static let defaultStart = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

    public init(start: Date = TestClock.defaultStart, mode: Mode = .automatic) {
        self.current = start
        self.mode = mode
    }

    /// The virtual time.
    public var now: Date { lock.withLock { current } }

    /// Moves the clock forward by `seconds` and wakes the engine.
    public func advance(by seconds: Double) {
        let target = lock.withLock { current.addingTimeInterval(max(0, seconds)) }
        advance(to: target)
    }

    /// Moves the clock to `date` (never backwards) and wakes the engine.
    public func advance(to date: Date) {
        let toWake: [@Sendable () -> Void] = lock.withLock {
            if date > current { current = date }
            idle = nil
            return Array(listeners.values)
        }
        for wake in toWake { wake() }
    }

    /// Manual mode: waits until the engine has nothing running and only timers left, and returns
    /// the earliest due time; nil once the run has ended. Then `advance(to:)` that time to fire it.
    public func nextWakeUp() async -> Date? {
        await withCheckedContinuation { continuation in
            let ready: Date?? = lock.withLock {
                if let idle { return idle }
                idleWaiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    // MARK: - For the engine

    func onAdvance(_ wake: @escaping @Sendable () -> Void) -> UUID {
        let id = UUID()
        lock.withLock { listeners[id] = wake }
        return id
    }

    func removeListener(_ id: UUID) {
        _ = lock.withLock { listeners.removeValue(forKey: id) }
    }

    /// The engine reports it waits for `due` (nil: the run ended); waiters of `nextWakeUp` resume.
    func engineIdle(until due: Date?) {
        let waiters: [CheckedContinuation<Date?, Never>] = lock.withLock {
            idle = .some(due)
            defer { idleWaiters = [] }
            return idleWaiters
        }
        for waiter in waiters { waiter.resume(returning: due) }
    }

    /// The engine has work again.
    func engineBusy() { lock.withLock { idle = nil } }

    /// Jumps to `date` if it is later (automatic mode), without waking anyone.
    func jump(to date: Date) { lock.withLock { if date > current { current = date } } }
}
