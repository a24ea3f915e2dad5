import BatonWebhooks
import Foundation
import Testing

/// docs/api.md's Python verification example, run as written on a body Baton signs: it must accept
/// the delivery and refuse it replayed (an old `t`) or tampered, so the example cannot rot.
@Suite struct DocsSignatureTests {
    static func docsExample() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/api.md"), encoding: .utf8)
        let marker = try #require(page.range(of: "<!-- verify-webhook.py -->\n```python\n"), "docs/api.md lost its verify example")
        let end = try #require(page.range(of: "\n```", range: marker.upperBound..<page.endIndex))
        return String(page[marker.upperBound..<end.lowerBound])
    }

    @Test func theDocsExampleAcceptsASignedBodyAndRefusesReplayedAndTampered() throws {
        let secret = "whsec_docs_example_0123456789"
        let body = #"{"id": "evt_7", "run": {"status": "failed"}, "type": "run.failed"}"#
        let now = Int64(Date().timeIntervalSince1970)
        let header = WebhookSigner(secret: secret).signature(body: Array(body.utf8), time: now)
        let script =
            try Self.docsExample() + """

                import sys, time
                secret, header, body = sys.argv[1].encode(), sys.argv[2], sys.argv[3].encode()
                print(verify(secret, header, body))
                print(verify(secret, header, body, now=time.time() + 600))
                print(verify(secret, header, body.replace(b"failed", b"succeeded")))
                print(verify(b"another secret!!", header, body))
                """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, secret, header, body]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(errors)")
        #expect(printed == "True\nFalse\nFalse\nFalse\n", "valid, replayed, tampered, other secret: \(printed) \(errors)")
    }
}
