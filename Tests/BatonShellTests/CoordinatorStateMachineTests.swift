import Baton
import Foundation
import Testing

@testable import BatonCoordinator

@Suite("CoordinatorStateMachine: the coordinator loop's decisions, with no services")
struct CoordinatorStateMachineTests {
    typealias Machine = CoordinatorStateMachine
    static let t0 = Date(timeIntervalSince1970: 1_000_000)
    static let intervals = Machine.Intervals(poll: 2, leaseCheck: 5, queueDepths: 10, balance: 100)

    static func machine(batchSize: Int = 3) -> Machine {
        Machine(intervals: intervals, batchSize: batchSize, random: { 0.5 })
    }

    /// A machine that leads, at `t0`, with its first batch done.
    static func leading(batchSize: Int = 3) -> Machine {
        var machine = machine(batchSize: batchSize)
        #expect(machine.next(.turn, now: t0) == .connect)
        #expect(machine.next(.connected, now: t0) == .readNotifications)
        #expect(machine.next(.notified(requests: false), now: t0) == .expireLeases)
        #expect(machine.next(.done, now: t0) == .receive(timeout: 0.05))
        #expect(machine.next(.received(false), now: t0) == .commit)
        #expect(machine.next(.committed(brokerServiced: false), now: t0) == .endTurn)
        return machine
    }

    /// Feeds `.done` / `.received(false)` until the turn ends; returns every action asked for.
    static func rest(of machine: inout Machine, after first: Machine.Action, now: Date, facts: Machine.Facts = .init()) -> [Machine.Action] {
        var actions = [first]
        var action = first
        while actions.count < 50 {
            let event: Machine.Event
            switch action {
            case .endTurn, .wait, .stop, .reconnect: return actions
            case .connect: event = .connected
            case .readNotifications: event = .notified(requests: false)
            case .receive: event = .received(false)
            case .commit: event = .committed(brokerServiced: false)
            default: event = .done
            }
            action = machine.next(event, now: now, facts: facts)
            actions.append(action)
        }
        Issue.record("the turn never ended: \(actions)")
        return actions
    }

    static func turn(_ machine: inout Machine, at now: Date, facts: Machine.Facts = .init()) -> [Machine.Action] {
        rest(of: &machine, after: machine.next(.turn, now: now, facts: facts), now: now, facts: facts)
    }

    @Test func aQuietTurnReadsNotificationsReceivesAndCommitsOnly() {
        var machine = Self.leading()
        let actions = Self.turn(&machine, at: Self.t0.addingTimeInterval(0.5))
        #expect(actions == [.readNotifications, .receive(timeout: 0.05), .commit, .endTurn])
    }

    @Test func periodicDutiesComeAtTheirIntervalsAndNotBefore() {
        var machine = Self.leading()
        let at1 = Self.turn(&machine, at: Self.t0.addingTimeInterval(1))
        #expect(at1 == [.readNotifications, .keepBrokerAlive, .receive(timeout: 0.05), .commit, .endTurn], "the broker is serviced every second")
        let at2 = Self.turn(&machine, at: Self.t0.addingTimeInterval(2))
        #expect(at2 == [.readNotifications, .poll, .takeRequests, .keepBrokerAlive, .receive(timeout: 0.05), .commit, .endTurn])
        let at5 = Self.turn(&machine, at: Self.t0.addingTimeInterval(5))
        #expect(at5.contains(.expireLeases) && at5.contains(.poll))
        let again = Self.turn(&machine, at: Self.t0.addingTimeInterval(5.5))
        #expect(!again.contains(.expireLeases) && !again.contains(.poll) && !again.contains(.keepBrokerAlive))
    }

    @Test func readingConfirmsDuringACommitCountsAsServicingTheBroker() {
        var machine = Self.leading()
        #expect(machine.next(.turn, now: Self.t0.addingTimeInterval(0.9)) == .readNotifications)
        #expect(machine.next(.notified(requests: false), now: Self.t0.addingTimeInterval(0.9)) == .receive(timeout: 0.05))
        #expect(machine.next(.received(false), now: Self.t0.addingTimeInterval(0.9)) == .commit)
        #expect(machine.next(.committed(brokerServiced: true), now: Self.t0.addingTimeInterval(0.9)) == .endTurn)
        #expect(!Self.turn(&machine, at: Self.t0.addingTimeInterval(1.5)).contains(.keepBrokerAlive))
        #expect(Self.turn(&machine, at: Self.t0.addingTimeInterval(1.9)).contains(.keepBrokerAlive))
    }

    @Test func aNotifiedRequestIsTakenInTheSameTurn() {
        var machine = Self.leading()
        let now = Self.t0.addingTimeInterval(0.5)
        #expect(machine.next(.turn, now: now) == .readNotifications)
        #expect(machine.next(.notified(requests: true), now: now) == .takeRequests)
        #expect(machine.next(.done, now: now) == .receive(timeout: 0.05))
    }

    @Test func dueTimersFireAndBoundTheWaitForMessages() {
        var machine = Self.leading()
        let now = Self.t0.addingTimeInterval(0.5)
        let due = Machine.Facts(nextWakeUp: now.addingTimeInterval(-0.1))
        #expect(Self.turn(&machine, at: now, facts: due).contains(.fireTimers))
        let soon = Machine.Facts(nextWakeUp: now.addingTimeInterval(0.01))
        let actions = Self.turn(&machine, at: now, facts: soon)
        #expect(!actions.contains(.fireTimers))
        guard case let .receive(timeout) = actions[1] else {
            Issue.record("expected a receive, got \(actions)")
            return
        }
        #expect(abs(timeout - 0.01) < 1e-6, "a timer due sooner shortens the wait")
    }

    @Test func aBatchTakesWhatIsThereUpToItsSizeThenCommits() {
        var machine = Self.leading(batchSize: 3)
        let now = Self.t0.addingTimeInterval(0.5)
        _ = machine.next(.turn, now: now)
        #expect(machine.next(.notified(requests: false), now: now) == .receive(timeout: 0.05))
        let pending = Machine.Facts(hasPending: true)
        #expect(machine.next(.received(true), now: now, facts: pending) == .receive(timeout: 0), "after one, only what is already there")
        #expect(machine.next(.received(true), now: now, facts: pending) == .receive(timeout: 0))
        #expect(machine.next(.received(true), now: now, facts: pending) == .commit, "full: committed, nothing more taken")
        #expect(machine.next(.committed(brokerServiced: false), now: now) == .endTurn)
    }

    @Test func decisionsPendingMeanNoIdleWait() {
        var machine = Self.leading()
        let now = Self.t0.addingTimeInterval(0.5)
        _ = machine.next(.turn, now: now)
        #expect(machine.next(.notified(requests: false), now: now, facts: .init(hasPending: true)) == .receive(timeout: 0))
    }

    @Test func partitionsAreBalancedFirstInATurnEveryInterval() {
        var machine = Self.leading()  // connecting balanced already
        #expect(machine.phase == .connected)
        #expect(Self.turn(&machine, at: Self.t0.addingTimeInterval(99)).first == .readNotifications)
        let due = Self.turn(&machine, at: Self.t0.addingTimeInterval(100))
        #expect(Array(due.prefix(2)) == [.balance, .readNotifications], "first in the turn, while nothing is pending")
        #expect(!Self.turn(&machine, at: Self.t0.addingTimeInterval(101)).contains(.balance))
    }

    @Test func aConfigurationErrorBeforeTheFirstConnectionStops() {
        var machine = Self.machine()
        #expect(machine.next(.turn, now: Self.t0) == .connect)
        #expect(!machine.everConnected)
        #expect(machine.next(.failed(.stop("cannot use RabbitMQ: 403")), now: Self.t0) == .stop("cannot use RabbitMQ: 403"))
        #expect(machine.phase == .stopped)
        #expect(machine.next(.turn, now: Self.t0.addingTimeInterval(60)) == .endTurn, "a stopped machine does nothing")
    }

    @Test func lostConnectionsBackOffDoublingToTheCapThenResetOnceLeading() {
        var machine = Self.leading()
        var now = Self.t0
        var delays: [Double] = []
        for _ in 0..<10 {
            guard case let .reconnect(delay) = machine.next(.failed(.reconnect(cap: 5)), now: now) else {
                Issue.record("expected a reconnect")
                return
            }
            delays.append(delay)
            #expect(machine.next(.turn, now: now) == .wait(until: now.addingTimeInterval(delay)), "no tight reconnect loop")
            now = now.addingTimeInterval(delay)
            #expect(machine.next(.turn, now: now) == .connect)
        }
        #expect(abs((delays.first ?? 0) - 0.075) < 1e-9)
        #expect(delays == delays.sorted() && delays.last == 3.75, "doubles, then stays at the cap (random 0.5 of [cap/2, cap])")
        #expect(machine.next(.connected, now: now) == .readNotifications)
        guard case let .reconnect(first) = machine.next(.failed(.reconnect(cap: 5)), now: now) else { return }
        #expect(abs(first - 0.075) < 1e-9, "the back-off starts afresh after a connection")
    }

    @Test func aConfigurationErrorAtRunTimeIsRetriedWithABackoffCappedAtThirtySeconds() {
        var machine = Self.leading()
        var delays: [Double] = []
        for _ in 0..<12 {
            if case let .reconnect(delay) = machine.next(.failed(.reconnect(cap: 30)), now: Self.t0) { delays.append(delay) }
        }
        #expect(delays.count == 12)
        #expect(delays.max() == 22.5 && delays.allSatisfy { $0 <= 30 })
    }

    @Test func aClockSteppedBackDoesNotHoldThePeriodicDutiesBack() {
        var machine = Self.leading()
        _ = Self.turn(&machine, at: Self.t0.addingTimeInterval(100))
        let back = Self.turn(&machine, at: Self.t0.addingTimeInterval(50))
        #expect(back.contains(.poll) && back.contains(.expireLeases) && back.contains(.keepBrokerAlive))
        #expect(!Self.turn(&machine, at: Self.t0.addingTimeInterval(50.5)).contains(.poll))
    }

    @Test func queueDepthsAreReadOnlyWithMetricsOn() {
        var machine = Self.leading()
        #expect(!Self.turn(&machine, at: Self.t0.addingTimeInterval(11)).contains(.readQueueDepths))
        let metrics = Machine.Facts(metrics: true)
        #expect(Self.turn(&machine, at: Self.t0.addingTimeInterval(12), facts: metrics).contains(.readQueueDepths))
        #expect(!Self.turn(&machine, at: Self.t0.addingTimeInterval(13), facts: metrics).contains(.readQueueDepths))
    }

    @Test func anEventOutOfTurnEndsTheTurnRatherThanActing() {
        var machine = Self.leading()
        #expect(machine.next(.received(true), now: Self.t0) == .endTurn, "a message with no receive asked for")
        #expect(machine.next(.done, now: Self.t0) == .endTurn)
    }
}
