import Baton
import BatonStore
import BatonWebhooks
import Testing

@Suite struct WebhookRequestTests {
    static let event = """
        {"at": "2026-11-27 16:56:28.88+00", "id": "evt_18", "run": {"id": "312cf978-3f55-4376-9d56-470bb636bd04", "name": "nightly-<x>", \
        "error": "node 'div' failed: division by zero", "status": "failed"}, "node": null, "type": "run.failed", "detail": {}}
        """

    static func delivery(_ format: WebhookFormat, attempts: Int = 0) -> ClaimedDelivery {
        ClaimedDelivery(
            id: 4, webhookID: 3, eventID: "evt_18", type: "run.failed", body: event, attempts: attempts, createdAt: 0,
            url: "http://127.0.0.1:9/hook", secret: "whsec_test_secret_0123", format: format)
    }

    @Test func aJSONDeliveryIsTheEventSignedAsStored() {
        let request = WebhookRequest(Self.delivery(.json, attempts: 2), time: 1_700_000_000)
        #expect(request.url == "http://127.0.0.1:9/hook")
        #expect(request.body == Array(Self.event.utf8), "the stored bytes, not re-serialized")
        #expect(request.header("content-type") == "application/json")
        #expect(request.header("Baton-Event-Id") == "evt_18" && request.header("Baton-Event-Type") == "run.failed")
        #expect(request.header("Baton-Delivery-Attempt") == "3")
        let signature = try! #require(request.header("Baton-Signature"))
        #expect(signature.hasPrefix("t=1700000000,v1="))
        #expect(WebhookSigner(secret: "whsec_test_secret_0123").verify(header: signature, body: request.body, now: 1_700_000_010))
    }

    @Test func aSlackDeliveryIsOneLineOfText() throws {
        let request = WebhookRequest(Self.delivery(.slack), time: 1_700_000_000)
        let json = try JSONParser.parse(String(decoding: request.body, as: UTF8.self))
        #expect(
            json["text"]?.stringValue
                == ":x: run.failed: run *nightly-&lt;x&gt;* (`312cf978-3f55-4376-9d56-470bb636bd04`): node 'div' failed: division by zero")
        #expect(
            WebhookSigner(secret: "whsec_test_secret_0123").verify(header: request.header("Baton-Signature")!, body: request.body, now: 1_700_000_000)
        )
    }

    @Test func aNodeEventNamesTheNode() throws {
        let event = try JSONParser.parse(
            #"{"type": "node.retrying", "run": {"id": "r", "name": "n", "status": "running", "error": null}, "node": {"key": "a/b", "procedure": "p", "attempt": 2, "error": "boom"}}"#
        )
        #expect(SlackFormat.text(of: event) == ":repeat: node.retrying: run *n* (`r`), node `a/b` (p), attempt 2: boom")
    }
}
