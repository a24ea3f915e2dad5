import Baton
import Foundation

/// The coordinator loop's decisions, as a value (as postgres-nio's connection state machine):
/// events go in (a turn begins, connected, notifications read, a message received or not, a batch
/// committed, an error decided, a stop asked for) and the next action comes out (connect, balance
/// the partitions, poll, fire timers, check leases, receive, commit, back off, stop). It
/// does no I/O and reads no clock: the time comes with each event. `CoordinatorLoop` carries
/// out its actions and feeds back what happened; the run state machines (`RunState`) decide
/// what each message means.
struct CoordinatorStateMachine: Sendable {
    /// What the loop does next.
    enum Action: Equatable, Sendable {
        /// Nothing before this time (a back-off): end the turn.
        case wait(until: Date)
        /// Open the store, connect the broker, announce this coordinator, take its share of the
        /// partitions and resume their unfinished runs; then feed `.connected`.
        case connect
        /// Announce this coordinator, renew its partitions' leases (dropping those taken over),
        /// hand over those beyond its share and take free ones up to it; feed `.done`. Comes first
        /// in a turn, when nothing is pending.
        case balance
        /// Read the store's notifications (new runs, new requests); feed `.notified`.
        case readNotifications
        /// Write run failures still unrecorded and load unfinished runs not in memory; feed `.done`.
        case poll
        /// Apply users' cancel and retry requests; feed `.done`.
        case takeRequests
        /// Tell every run whose timer is due; feed `.done`.
        case fireTimers
        /// Re-dispatch the attempts of workers whose lease ran out; feed `.done`.
        case expireLeases
        /// Read the task queues' depths for the metrics; feed `.done`.
        case readQueueDepths
        /// Let the broker connection answer heartbeats; feed `.done`.
        case keepBrokerAlive
        /// Wait up to `timeout` seconds for one message and handle it; feed `.received`.
        case receive(timeout: Double)
        /// Settle confirms, commit the batch, publish what it decided, ack what is safe; feed `.committed`.
        case commit
        /// The turn is over.
        case endTurn
        /// Close every connection and forget what is in memory; the next turn, not before
        /// `after` seconds, connects again. (Log the error with the delay.)
        case reconnect(after: Double)
        /// Stop the coordinator with this line.
        case stop(String)
    }

    /// What happened.
    enum Event: Equatable, Sendable {
        /// A turn begins.
        case turn
        /// Connected, with its share of the partitions (perhaps none) and their runs resumed.
        case connected
        /// Notifications were read; `requests` when users asked for something.
        case notified(requests: Bool)
        /// The action asked for is done.
        case done
        /// A message arrived and was handled (`true`), or none came in time (`false`).
        case received(Bool)
        /// The batch was committed; `brokerServiced` when confirms were read from the broker meanwhile.
        case committed(brokerServiced: Bool)
        /// An action failed; `FailureDecision` said what to do.
        case failed(FailureDecision)
    }

    /// What the loop knows that the decisions read: passed with every event.
    struct Facts: Equatable, Sendable {
        /// The earliest timer of any run in memory.
        var nextWakeUp: Date? = nil
        /// The batch holds decisions not yet committed.
        var hasPending = false
        /// Metrics are on (the queue depths are read).
        var metrics = false
        /// Bytes of the messages received in the batch so far.
        var batchBytes = 0
    }

    /// Intervals of the periodic duties, in seconds.
    struct Intervals: Equatable, Sendable {
        /// Unfinished runs and requests are looked for at least this often (notifications may be missed).
        var poll: Double
        /// Leases are checked this often.
        var leaseCheck: Double
        /// Queue depths are read this often (with metrics on).
        var queueDepths: Double
        /// An idle broker connection is serviced this often (librabbitmq answers heartbeats only inside a call).
        var keepAlive: Double = 1
        /// Partitions are renewed and balanced this often (a fraction of their lease).
        var balance: Double = 2
    }

    /// Where the loop is.
    enum Phase: Equatable, Sendable {
        case disconnected
        case connected
        case stopped
    }

    private enum Stage: Equatable, Sendable {
        case idle, connecting, balancing, notifications, poll, requests, timers, leases, depths, keepAlive
        case receiving(received: Int)
        case committing
    }

    let intervals: Intervals
    let receive: ReceivePolicy
    private(set) var phase = Phase.disconnected
    private var stage = Stage.idle
    /// Not before this time does a turn do anything.
    private(set) var resumeAt = Date.distantPast
    private var backoff: Backoff
    /// Connected once to both services: until then a configuration error stops the coordinator.
    private(set) var everConnected = false
    private var requestsWaiting = false
    private var lastBalance = Date.distantPast
    private var lastPoll = Date.distantPast
    private var lastLeaseCheck = Date.distantPast
    private var lastDepthReading = Date.distantPast
    private var lastBrokerService = Date.distantPast

    init(intervals: Intervals, batchSize: Int, batchBytes: Int = .max, random: @escaping @Sendable () -> Double) {
        self.intervals = intervals
        receive = ReceivePolicy(batchSize: batchSize, batchBytes: batchBytes)
        backoff = Backoff(random: random)
    }

    /// Feeds one event at `now`; returns what to do next.
    mutating func next(_ event: Event, now: Date, facts: Facts = Facts()) -> Action {
        if phase == .stopped { return .endTurn }
        switch event {
        case .turn:
            guard now >= resumeAt else { return .wait(until: resumeAt) }
            if phase != .connected {
                stage = .connecting
                return .connect
            }
            if Self.due(lastBalance, every: intervals.balance, now: now) {
                lastBalance = now
                stage = .balancing
                return .balance
            }
            return beginBatch()
        case .connected:
            phase = .connected
            everConnected = true
            backoff.reset()
            // Connecting balanced, polled, took the requests and committed: the batch starts afresh.
            lastBalance = now
            lastPoll = now
            lastBrokerService = now
            return beginBatch()
        case let .failed(decision):
            stage = .idle
            requestsWaiting = false
            if case let .stop(message) = decision {
                phase = .stopped
                return .stop(message)
            }
            let cap = if case let .reconnect(cap) = decision { cap } else { FailureDecision.reconnectCap }
            let delay = min(cap, backoff.next(cappedAt: cap))
            phase = .disconnected
            resumeAt = now.addingTimeInterval(delay)
            return .reconnect(after: delay)
        case let .notified(requests):
            requestsWaiting = requestsWaiting || requests
            return afterNotifications(now: now, facts: facts)
        case .done:
            return afterDuty(now: now, facts: facts)
        case let .received(arrived):
            guard case let .receiving(received) = stage else { return .endTurn }
            guard arrived else { return commit() }
            return receiveOrCommit(received: received + 1, now: now, facts: facts)
        case let .committed(serviced):
            if serviced { lastBrokerService = now }
            stage = .idle
            return .endTurn
        }
    }

    /// Asks to stop: nothing more is done.
    mutating func stop() { phase = .stopped }

    private mutating func beginBatch() -> Action {
        stage = .notifications
        return .readNotifications
    }

    private mutating func afterNotifications(now: Date, facts: Facts) -> Action {
        if Self.due(lastPoll, every: intervals.poll, now: now) {
            lastPoll = now
            requestsWaiting = true
            stage = .poll
            return .poll
        }
        return afterPoll(now: now, facts: facts)
    }

    private mutating func afterDuty(now: Date, facts: Facts) -> Action {
        switch stage {
        case .balancing: return beginBatch()
        case .poll: return afterPoll(now: now, facts: facts)
        case .requests: return afterRequests(now: now, facts: facts)
        case .timers: return afterTimers(now: now, facts: facts)
        case .leases: return afterLeases(now: now, facts: facts)
        case .depths: return afterDepths(now: now, facts: facts)
        case .keepAlive: return receiveOrCommit(received: 0, now: now, facts: facts)
        case .idle, .connecting, .notifications, .receiving, .committing: return .endTurn
        }
    }

    private mutating func afterPoll(now: Date, facts: Facts) -> Action {
        if requestsWaiting {
            requestsWaiting = false
            stage = .requests
            return .takeRequests
        }
        return afterRequests(now: now, facts: facts)
    }

    private mutating func afterRequests(now: Date, facts: Facts) -> Action {
        if let wake = facts.nextWakeUp, wake <= now {
            stage = .timers
            return .fireTimers
        }
        return afterTimers(now: now, facts: facts)
    }

    private mutating func afterTimers(now: Date, facts: Facts) -> Action {
        if Self.due(lastLeaseCheck, every: intervals.leaseCheck, now: now) {
            lastLeaseCheck = now
            stage = .leases
            return .expireLeases
        }
        return afterLeases(now: now, facts: facts)
    }

    private mutating func afterLeases(now: Date, facts: Facts) -> Action {
        if facts.metrics, Self.due(lastDepthReading, every: intervals.queueDepths, now: now) {
            lastDepthReading = now
            stage = .depths
            return .readQueueDepths
        }
        return afterDepths(now: now, facts: facts)
    }

    private mutating func afterDepths(now: Date, facts: Facts) -> Action {
        if Self.due(lastBrokerService, every: intervals.keepAlive, now: now) {
            lastBrokerService = now
            stage = .keepAlive
            return .keepBrokerAlive
        }
        return receiveOrCommit(received: 0, now: now, facts: facts)
    }

    private mutating func receiveOrCommit(received: Int, now: Date, facts: Facts) -> Action {
        guard
            let wait = receive.wait(
                received: received, bytes: facts.batchBytes, hasPending: facts.hasPending, nextWakeUp: facts.nextWakeUp, now: now)
        else {
            return commit()
        }
        stage = .receiving(received: received)
        return .receive(timeout: wait)
    }

    private mutating func commit() -> Action {
        stage = .committing
        return .commit
    }

    /// A periodic duty is due when `interval` passed since `last`, or when the clock went back
    /// before `last` (a clock stepped backwards must not hold the duty back until it catches up).
    static func due(_ last: Date, every interval: Double, now: Date) -> Bool {
        let elapsed = now.timeIntervalSince(last)
        return elapsed >= interval || elapsed < 0
    }
}
