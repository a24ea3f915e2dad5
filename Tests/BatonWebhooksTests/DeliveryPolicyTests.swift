import BatonStore
import BatonWebhooks
import Testing

@Suite struct DeliveryPolicyTests {
    let policy = DeliveryPolicy()

    @Test func aTwoHundredIsDelivered() {
        for status in [200, 201, 204, 299] {
            #expect(policy.step(attempt: 1, status: status, createdAt: 0, now: 5) == .delivered)
        }
    }

    @Test func anythingElseIsRetriedWithAGrowingBackoff() {
        let waits = (1...10).map { policy.step(attempt: $0, status: 500, createdAt: 0, now: 100) }
        #expect(waits == [10, 30, 60, 120, 300, 900, 1800, 3600, 3600, 3600].map { DeliveryStep.retry(after: $0) })
        #expect(policy.step(attempt: 1, status: nil, createdAt: 0, now: 1) == .retry(after: 10), "no answer")
        #expect(policy.step(attempt: 1, status: 302, createdAt: 0, now: 1) == .retry(after: 10), "a redirect is not followed")
        #expect(policy.step(attempt: 1, status: 410, createdAt: 0, now: 1) == .retry(after: 10))
    }

    @Test func givesUp24HoursAfterTheEvent() {
        #expect(policy.step(attempt: 30, status: 500, createdAt: 1000, now: 1000 + 86_400) == .giveUp)
        #expect(policy.step(attempt: 30, status: 500, createdAt: 1000, now: 1000 + 86_399) == .retry(after: 1), "the last try is at 24 h")
        #expect(policy.step(attempt: 30, status: 200, createdAt: 1000, now: 1000 + 90_000) == .delivered, "a late success still counts")
    }

    @Test func theBaseScalesTheSchedule() {
        let fast = DeliveryPolicy(base: 0.2)
        #expect((1...3).map { fast.backoff(afterAttempt: $0) } == [0.2, 0.6000000000000001, 1.2000000000000002])
    }
}

@Suite struct WebhookHostsTests {
    @Test func unsetAllowsAnyHost() {
        #expect(WebhookHosts(environment: nil).refusal("https://example.com/x") == nil)
        #expect(WebhookHosts(environment: " , ").refusal("https://example.com/x") == nil)
    }

    @Test func setAllowsOnlyThoseHosts() {
        let hosts = WebhookHosts(environment: "127.0.0.1, Alerts.Example.com,::1")
        #expect(hosts.refusal("http://127.0.0.1:8080/hook") == nil)
        #expect(hosts.refusal("https://user:pw@alerts.example.com/baton?x=1") == nil)
        #expect(hosts.refusal("http://[::1]:9/x") == nil)
        #expect(hosts.refusal("https://evil.example.com/x") == "host 'evil.example.com' is not in BATON_WEBHOOK_HOSTS")
        #expect(hosts.refusal("https://alerts.example.com@evil.example.com/") == "host 'evil.example.com' is not in BATON_WEBHOOK_HOSTS")
        #expect(hosts.refusal("http://169.254.169.254/latest") != nil)
    }
}
