import BatonStore
import BatonWebhooks
import Testing

/// `DeliveryTurn`: the decisions of one delivery turn, with no services.
@Suite struct DeliveryTurnTests {
    static func claimed(_ id: Int64, url: String = "https://hooks.example/in", attempts: Int = 0, createdAt: Double = 1000) -> ClaimedDelivery {
        ClaimedDelivery(
            id: id, webhookID: 7, eventID: "evt_\(id)", type: "run.failed", body: #"{"id":"evt_\#(id)"}"#, attempts: attempts,
            createdAt: createdAt, url: url, secret: "a-secret-of-sixteen", format: .json)
    }

    let turn = DeliveryTurn(hosts: WebhookHosts(allowed: ["hooks.example"]))

    @Test func theLeaseIsTheTimeoutAndItsMargin() {
        #expect(DeliveryTurn().lease == 70)
        #expect(DeliveryTurn(timeout: 2, leaseMargin: 3).lease == 5)
    }

    @Test func aRefusedHostIsNotPostedAndGivesUpAtOnce() {
        let claimed = [Self.claimed(1), Self.claimed(2, url: "https://elsewhere.example/x"), Self.claimed(3, attempts: 2)]
        let requests = turn.requests(for: claimed, time: 1005)
        #expect(requests.map { $0 != nil } == [true, false, true])
        #expect(requests[2]?.header("Baton-Delivery-Attempt") == "3", "the attempt's number goes with it")
        let records = turn.records(
            for: claimed,
            outcomes: [DeliveryOutcome(status: 204, error: nil, durationMs: 12), DeliveryOutcome(status: 503, error: nil, durationMs: 40)],
            now: 1010)
        #expect(records.map(\.deliveryID) == [1, 2, 3])
        #expect(records.map(\.attempt) == [1, 1, 3])
        #expect(records[0].step == .delivered && records[0].log == nil)
        #expect(records[1].step == .giveUp)
        #expect(records[1].outcome == DeliveryOutcome(status: nil, error: "host 'elsewhere.example' is not in BATON_WEBHOOK_HOSTS", durationMs: 0))
        #expect(records[1].log?.warning == true)
        #expect(records[2].step == .retry(after: 60), "the third attempt's back-off, the policy's")
        #expect(records[2].outcome.status == 503)
        #expect(records[2].log?.warning == false && records[2].log?.text.contains("attempt 3 got HTTP 503") == true)
    }

    @Test func eachOutcomeGetsThePolicysStep() {
        let claimed = [Self.claimed(1), Self.claimed(2, attempts: 7), Self.claimed(3, createdAt: 0)]
        let outcomes = [
            DeliveryOutcome(status: nil, error: "timed out", durationMs: 10_000), DeliveryOutcome(status: 200, error: nil, durationMs: 5),
            DeliveryOutcome(status: 500, error: nil, durationMs: 5),
        ]
        let records = turn.records(for: claimed, outcomes: outcomes, now: 1000 + 86_400 - 5)
        #expect(records.map(\.step) == [.retry(after: 5), .delivered, .giveUp], "clamped to the give-up time; late success; past 24 h")
        #expect(records[0].outcome.error == "timed out")
        #expect(records[2].log?.text == "webhook 7: evt_3 given up after 1 attempts (HTTP 500)")
    }

    @Test func aMissingAnswerIsRecordedAsNotSent() {
        let records = turn.records(for: [Self.claimed(1)], outcomes: [], now: 1001)
        #expect(records[0].outcome == DeliveryOutcome(status: nil, error: "not sent", durationMs: 0))
        #expect(records[0].step == .retry(after: 10))
    }
}
