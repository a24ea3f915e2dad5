import Foundation

/// A clock for `LocalEngine` that tests control, so hour-long back-offs, repeat waits, delays and
/// timeouts take no real time. The scheduler reads no clock of its own (time comes with each event),
/// so with a `TestClock` the real scheduler runs exactly as it would, at virtual times.
///
/// - `.automatic`: whenever no attempt is running and only timers remain, the clock jumps to the
///   next due time at once. Attempts themselves run in real time, at a frozen virtual time.
/// - `.manual`: time moves only when the test calls `advance(by:)` or `advance(to:)`;
///   `nextWakeUp()` waits until the engine has nothing to do but wait for a timer, and
///   `nextDeadline()` until it waits with a timer or a running attempt's deadline pending.
///
/// Attempts run in real time in both modes, and the worker-side timeout race of an attempt with a
/// `timeout` is on the real clock too. The scheduler's own deadline (the timeout plus its grace)
/// is on this clock: with `.manual`, advancing past it times out a procedure that never ends.
public final class TestClock: @unchecked Sendable {
    public enum Mode: Sendable { case automatic, manual }

    public let mode: Mode
    // Safe: every mutable field is read and written under `lock`.
    private let lock = NSLock()
    private var current: Date
    private var listeners: [UUID: @Sendable () -> Void] = [:]
    /// What the engine was doing when it last waited; nil while it handles an event.
    private var engine: EngineState?
    private var waiters: [Waiter] = []

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
            engine = nil
            return Array(listeners.values)
        }
        for wake in toWake { wake() }
    }

    /// Manual mode: waits until the engine has nothing running and only timers left, and returns
    /// the earliest due time; nil once the run has ended. Then `advance(to:)` that time to fire it.
    public func nextWakeUp() async -> Date? {
        await wait { state in
            switch state {
            case .ended: return .some(nil)
            case let .waiting(due?, busy: false): return due
            case .waiting: return nil
            }
        }
    }

    /// Manual mode: waits until the engine waits with a timer or an attempt's deadline pending, even
    /// while attempts run, and returns it; nil once the run has ended. This is how a test makes a
    /// procedure that does not end on its own time out: advance past the deadline this returns.
    public func nextDeadline() async -> Date? {
        await wait { state in
            switch state {
            case .ended: return .some(nil)
            case let .waiting(due?, _): return due
            case .waiting: return nil
            }
        }
    }

    /// What the engine is doing when it waits for something to happen.
    enum EngineState {
        case waiting(Date?, busy: Bool)
        case ended
    }

    private struct Waiter {
        let answer: (EngineState) -> Date??
        let continuation: CheckedContinuation<Date?, Never>
    }

    private func wait(_ answer: @escaping (EngineState) -> Date??) async -> Date? {
        await withCheckedContinuation { continuation in
            let ready: Date?? = lock.withLock {
                if let engine, let value = answer(engine) { return value }
                waiters.append(Waiter(answer: answer, continuation: continuation))
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

    /// The engine waits for an event, with `due` the next timer or deadline and `busy` whether attempts run.
    func engineWaits(for due: Date?, busy: Bool) { report(.waiting(due, busy: busy)) }

    /// The run has ended.
    func engineEnded() { report(.ended) }

    /// The engine is handling an event: what it waited for is not known any more.
    func engineAwake() { lock.withLock { engine = nil } }

    private func report(_ state: EngineState) {
        let ready: [(CheckedContinuation<Date?, Never>, Date?)] = lock.withLock {
            engine = state
            var ready: [(CheckedContinuation<Date?, Never>, Date?)] = []
            waiters.removeAll { waiter in
                guard let value = waiter.answer(state) else { return false }
                ready.append((waiter.continuation, value))
                return true
            }
            return ready
        }
        for (continuation, value) in ready { continuation.resume(returning: value) }
    }

    /// Jumps to `date` if it is later (automatic mode), without waking anyone.
    func jump(to date: Date) { lock.withLock { if date > current { current = date } } }
}
