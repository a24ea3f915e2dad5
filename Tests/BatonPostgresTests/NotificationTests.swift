import BatonPostgres
import Testing

@Suite struct NotificationTests {
    /// Polls until a notification arrives or `seconds` pass; no sleeps.
    func firstNotifications(on db: PGConnection, within seconds: Double) throws -> [PGNotification] {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(seconds)
        while clock.now < deadline {
            let notes = try db.waitForNotifications(timeout: 0.5)
            if !notes.isEmpty { return notes }
        }
        return []
    }

    @Test func notifyFromAnotherConnectionIsDelivered() throws {
        let listener = try connect()
        let sender = try connect()
        let channel = uniqueName("Chan")  // mixed case: must be quoted, not folded
        try listener.listen(channel)
        try sender.notify(channel, payload: "héllo '; drop table x; --")
        let notes = try firstNotifications(on: listener, within: 10)
        #expect(notes == [PGNotification(channel: channel, payload: "héllo '; drop table x; --", pid: sender.backendPID)])
    }

    @Test func severalNotificationsArriveInOrder() throws {
        let listener = try connect()
        let sender = try connect()
        let channel = uniqueName("c")
        try listener.listen(channel)
        try sender.transaction { tx in
            for i in 1...3 { try tx.notify(channel, payload: "\(i)") }
        }
        var payloads: [String] = []
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(10)
        while payloads.count < 3 && clock.now < deadline {
            payloads += try listener.waitForNotifications(timeout: 0.5).map(\.payload)
        }
        #expect(payloads == ["1", "2", "3"])
    }

    @Test func timesOutWithNothing() throws {
        let listener = try connect()
        try listener.listen(uniqueName("quiet"))
        let clock = ContinuousClock()
        let start = clock.now
        let notes = try listener.waitForNotifications(timeout: 0.2)
        let elapsed = clock.now - start
        #expect(notes.isEmpty)
        #expect(elapsed >= .milliseconds(190))
        #expect(elapsed < .seconds(2))
        #expect(try listener.waitForNotifications(timeout: 0).isEmpty)
    }

    @Test func unlistenStopsDelivery() throws {
        let listener = try connect()
        let sender = try connect()
        let channel = uniqueName("c")
        try listener.listen(channel)
        try listener.unlisten(channel)
        try sender.notify(channel, payload: "ignored")
        try listener.listen(channel)  // a round trip, after which "ignored" would have arrived
        try sender.notify(channel, payload: "seen")
        let notes = try firstNotifications(on: listener, within: 10)
        #expect(notes.map(\.payload) == ["seen"])
    }

    @Test func identifierQuotingIsSafe() throws {
        let db = try connect()
        let channel = "weird\"; select 1; --" + uniqueName("")
        try db.listen(channel)
        try db.notify(channel, payload: "p")
        let notes = try firstNotifications(on: db, within: 10)
        #expect(notes.map(\.channel) == [channel])
    }
}
