import BatonStore
import Testing

@Suite struct WebhookDraftTests {
    static func problem(
        url: String = "https://example.com/h", events: String = "run.failed", glob: String? = nil, secret: String? = nil, format: String? = nil
    )
        -> String?
    {
        if case let .failure(p) = WebhookDraft.make(url: url, events: events, nameGlob: glob, secret: secret, format: format) { return p.description }
        return nil
    }

    @Test(
        "bad input is one line naming it",
        arguments: [
            (problem(url: "ftp://example.com"), "is not http:// or https://"),
            (problem(url: "HTTP://example.com"), "is not http:// or https://"),
            (problem(url: "http://"), "has no host"),
            (problem(url: "http:///path"), "has no host"),
            (problem(url: "http://a b"), "space or control"),
            (problem(events: "run.fail"), "unknown event kind 'run.fail'"),
            (problem(events: ""), "unknown event kind ''"),
            (problem(glob: ""), "the name glob is empty"),
            (problem(glob: "a[bc]"), "'[' or ']'"),
            (problem(glob: String(repeating: "a", count: 201)), "201 characters"),
            (problem(secret: "short"), "it needs 16 to 256"),
            (problem(format: "xml"), "unknown format 'xml'"),
        ])
    func refused(_ problem: String?, _ words: String) {
        #expect(problem?.contains(words) == true, "\(problem ?? "accepted")")
    }

    @Test func kindsAndSecrets() throws {
        let draft = try WebhookDraft.make(url: "http://127.0.0.1:8/x", events: "run.*, signal.waiting", nameGlob: nil, secret: nil, format: nil).get()
        #expect(draft.events == [.runSucceeded, .runFailed, .runCancelled, .signalWaiting])
        #expect(draft.secretGenerated && draft.secret.hasPrefix("whsec_") && draft.secret.count == 49 && draft.format == .json)
        let other = try WebhookDraft.make(url: "http://127.0.0.1:8/x", events: "all", nameGlob: nil, secret: nil, format: "slack").get()
        #expect(other.events.count == 6 && other.secret != draft.secret && other.format == .slack)
        let given = try WebhookDraft.make(url: "http://h", events: "node.failed", nameGlob: nil, secret: "0123456789abcdef", format: nil).get()
        #expect(!given.secretGenerated && given.secret == "0123456789abcdef")
    }

    @Test func globsMatchAsTheirLikePatterns() throws {
        let glob = try NameGlob.parse("nightly-*_?%").get()
        #expect(glob.like == #"nightly-%\__\%"#)
        #expect(glob.matches("nightly-report_1%") && glob.matches("nightly-_x%"))
        #expect(!glob.matches("nightly-report_1") && !glob.matches("daily-report_1%"))
        #expect(try NameGlob.parse("*").get().matches(""))
        #expect(try NameGlob.parse(#"a\b"#).get().like == #"a\\b"#)
    }
}
