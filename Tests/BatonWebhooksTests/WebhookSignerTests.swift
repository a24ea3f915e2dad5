import BatonWebhooks
import Testing

@Suite struct WebhookSignerTests {
    let signer = WebhookSigner(secret: "whsec_test_secret_0123")
    let body = Array(#"{"id": "evt_1"}"#.utf8)

    /// The value Python's `hmac.new(secret, b"1700000000." + body, hashlib.sha256).hexdigest()` gives.
    @Test func matchesAnIndependentHMAC() {
        #expect(
            signer.signature(body: body, time: 1_700_000_000)
                == "t=1700000000,v1=68585933cdaee09b4db38007df6814a35ccd8a4c1afd24adfc239627b4d712f6")
    }

    @Test func verifiesItsOwnSignatureWithinTheTolerance() {
        let header = signer.signature(body: body, time: 1_700_000_000)
        #expect(signer.verify(header: header, body: body, now: 1_700_000_000))
        #expect(signer.verify(header: header, body: body, now: 1_700_000_299))
        #expect(signer.verify(header: " t=1700000000 , v1=" + header.split(separator: "=").last!, body: body, now: 1_700_000_000))
    }

    @Test func refusesReplayedTamperedOrForeign() {
        let header = signer.signature(body: body, time: 1_700_000_000)
        #expect(!signer.verify(header: header, body: body, now: 1_700_000_301), "replayed: t is over 5 minutes old")
        #expect(!signer.verify(header: header, body: Array(#"{"id": "evt_2"}"#.utf8), now: 1_700_000_000), "tampered body")
        #expect(!WebhookSigner(secret: "another_secret_0000").verify(header: header, body: body, now: 1_700_000_000), "other secret")
        let moved = header.replacingOccurrences(of: "t=1700000000", with: "t=1700000100")
        #expect(!signer.verify(header: moved, body: body, now: 1_700_000_100), "a new t on an old signature")
        for bad in ["", "t=1700000000", "v1=00", "t=x,v1=zz", "t=1700000000,v1=0"] {
            #expect(!signer.verify(header: bad, body: body, now: 1_700_000_000), "\(bad)")
        }
    }
}
