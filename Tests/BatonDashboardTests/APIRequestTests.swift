import Baton
import BatonStore
import Foundation
import Testing

@testable import BatonServer

/// The API's values, without a server: the token a header shows, `?wait=`, the run body's checks,
/// and the document the server serves against the one kept in docs/.
@Suite("API requests")
struct APIRequestTests {
    @Test func theAuthorizationHeaderMustBeABearerTokenOfTheRightShape() throws {
        let secret = TokenSecret.generate()
        #expect(try APIAccess.secret(authorization: "Bearer \(secret.text)").get() == secret)
        #expect(try APIAccess.secret(authorization: "bearer  \(secret.text)").get() == secret)
        for header in [nil, "", "Basic abc", "Bearer", "Bearer baton_short", "Token \(secret.text)"] {
            guard case let .failure(error) = APIAccess.secret(authorization: header) else {
                Issue.record("\(String(describing: header)) let in")
                continue
            }
            #expect(error.status == 401 && error.code == "unauthorized")
        }
    }

    @Test func aTokenWithoutTheScopeIsForbiddenAndAdminHoldsEveryScope() {
        let reader = TokenRow(name: "r", prefix: "baton_abcdef", scopes: [.read], createdAt: 0)
        #expect(APIAccess.refusal(reader, needs: .read) == nil)
        #expect(APIAccess.refusal(reader, needs: nil) == nil)
        #expect(APIAccess.refusal(reader, needs: .submit)?.status == 403)
        #expect(APIAccess.refusal(reader, needs: .submit)?.message == "token 'r' lacks the submit scope this needs")
        let admin = TokenRow(name: "a", prefix: "baton_abcdef", scopes: [.admin], createdAt: 0)
        #expect(AccessScope.allCases.allSatisfy { APIAccess.refusal(admin, needs: $0) == nil })
    }

    @Test func waitIsZeroToSixtySeconds() throws {
        #expect(try APIWait.parse(nil) == 0)
        #expect(try APIWait.parse("250ms") == 0.25)
        #expect(try APIWait.parse("30s") == 30)
        #expect(try APIWait.parse("1.5s") == 1.5)
        #expect(try APIWait.parse("1m") == 60)
        for bad in ["61s", "2m", "-1s", "soon", "", "s", "1e3ms"] {
            #expect(throws: APIError.self, "\(bad)") { try APIWait.parse(bad) }
        }
    }

    @Test func theRunBodyIsStrict() throws {
        func parse(_ text: String) -> Result<RunCreateBody, APIError> {
            Result { try RunCreateBody.parse(Array(text.utf8)) }.mapError { $0 as! APIError }
        }
        let body = try parse(#"{"graph": {"nodes": {}}, "input": {"a": 1}, "name": "n", "type_check": false}"#).get()
        #expect(body.name == "n" && body.input == ["a": 1] && !body.typeCheck && !body.allowUnknownProcedures)
        let cases: [(String, Int, String)] = [
            ("{", 400, "not JSON"), ("[]", 422, "JSON object"), (#"{"nodes": {}}"#, 422, "unknown member 'nodes'"),
            (#"{"input": {}}"#, 422, "no `graph`"), (#"{"graph": 3}"#, 422, "`graph` must be"),
            (#"{"graph": {}, "input": 1}"#, 422, "`input` must be an object"), (#"{"graph": {}, "name": ""}"#, 422, "`name`"),
            (#"{"graph": {}, "type_check": "no"}"#, 422, "`type_check` must be true or false"),
        ]
        for (text, status, words) in cases {
            guard case let .failure(error) = parse(text) else {
                Issue.record("\(text) parsed")
                continue
            }
            #expect(error.status == status && error.message.contains(words), "\(text): \(error.message)")
        }
    }

    @Test func anInvalidGraphNamesEveryProblemInTheMessageAndTheDetails() throws {
        let body = try RunCreateBody.parse(Array(#"{"graph": "nodes:\n  a: {procedure: baton.echo, after: [zz]}\n  b: {}\n"}"#.utf8))
        #expect(throws: APIError.self) { try body.graph(limits: GraphLimits(), knownProcedures: nil, schemas: nil) }
        do { _ = try body.graph(limits: GraphLimits(), knownProcedures: nil, schemas: nil) } catch let error as APIError {
            #expect(error.status == 422 && error.message.hasPrefix("graph: invalid graph ("), "\(error.message)")
            #expect(error.message.contains("graph:2:") && error.message.contains("graph:3:"), "each problem on its line: \(error.message)")
            #expect(error.details.count >= 2 && error.message.contains("(\(error.details.count) problems)"))
        }
        let named = try RunCreateBody.parse(Array(#"{"graph": {"name": "g", "nodes": {"a": {"procedure": "baton.echo"}}}, "name": "mine"}"#.utf8))
        #expect(try named.graph(limits: GraphLimits(), knownProcedures: nil, schemas: nil).name == "mine")
        let unknown = try RunCreateBody.parse(Array(#"{"graph": {"nodes": {"a": {"procedure": "no.such"}}}}"#.utf8))
        #expect(throws: APIError.self) { try unknown.graph(limits: GraphLimits(), knownProcedures: ["baton.echo"], schemas: nil) }
    }

    /// The document served is the one kept in docs/api/openapi.json; after editing that file, run
    /// deploy/local/embed-openapi.sh.
    @Test func theServedDocumentIsTheOneInDocs() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let kept = try String(contentsOf: root.appendingPathComponent("docs/api/openapi.json"), encoding: .utf8)
        #expect(OpenAPIDocument.text + "\n" == kept, "docs/api/openapi.json changed: run deploy/local/embed-openapi.sh")
        let document = try JSONParser.parse(kept)
        #expect(document["openapi"] == "3.1.0")
        for path in ["/runs", "/runs/{id}", "/whoami", "/openapi.json"] { #expect(document["paths"]?[path] != nil, "\(path)") }
    }

    @Test func eachTokenFollowsAtMostItsShareOfEventStreams() {
        let slots = StreamSlots(limit: 3)
        #expect((0..<3).allSatisfy { _ in slots.take("a") })
        #expect(!slots.take("a"), "a fourth stream of one token")
        #expect(slots.take("b"), "another token has its own share")
        slots.give("a")
        #expect(slots.take("a"), "a closed stream frees its slot")
    }

    @Test func runCursorsAndSinceAreCheckedAndRoundTrip() throws {
        let mark = RunPageMark(micros: 1_795_000_000_123_456, id: "0f6c2a8e-0000-4000-8000-000000000001")
        #expect(try PageCursor.run(PageCursor.text(run: mark)) == mark)
        for bad in ["", "r", "r12", "r-1_0f6c2a8e-0000-4000-8000-000000000001", "n12", "r1_x", "r1_0f6c2a8e-0000-4000-8000-000000000001_1"] {
            #expect(throws: APIError.self, "\(bad)") { try PageCursor.run(bad) }
        }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(try RunListQuery.since("2h", now: now) == 1_800_000_000 - 7200)
        #expect(try RunListQuery.since("2026-11-27T08:00:00Z", now: now) == 1_795_766_400)
        #expect(try RunListQuery.since("2026-11-27T08:00:00.5+01:00", now: now) == 1_795_762_800.5)
        #expect(try RunListQuery.since("5200w", now: now) == 1_800_000_000 - 5200 * 604_800, "99.7 years")
        // 589634w (Schemathesis's) reached PostgreSQL as a timestamp out of its range, a 503: an age over
        // 100 years counts as 100 (every run), as the pattern allows it.
        for old in ["5300w", "589634w", "999999w", "999999d"] {
            #expect(try RunListQuery.since(old, now: now) == 1_800_000_000 - RunListQuery.maxAge, "\(old)")
        }
        for bad in ["0h", "1y", "h", "tomorrow", "2026-11-27", "1234567h"] {
            #expect(throws: APIError.self, "\(bad)") { try RunListQuery.since(bad, now: now) }
        }
    }

    @Test func aTokenBucketLetsABurstThroughThenTheRate() {
        var bucket = RateBucket(perSecond: 2, burst: 3, now: 100)
        #expect((0..<3).allSatisfy { _ in bucket.take(now: 100) == nil })
        #expect(bucket.take(now: 100) == 0.5, "the next token comes in half a second")
        #expect(bucket.take(now: 100.5) == nil)
        #expect(bucket.take(now: 110) == nil && bucket.tokens == 2, "refilled up to the burst, no more")
        #expect(RateLimit.parse("20/s") == .success(RateLimit(perSecond: 20, text: "20/s")))
        #expect((try? RateLimit.parse("60/m").get())?.perSecond == 1)
        for bad in ["", "0/s", "20", "20/h", "x/s", "-1/s", "20/s/s"] {
            guard case .failure = RateLimit.parse(bad) else {
                Issue.record("\(bad) parsed")
                continue
            }
        }
    }

    @Test func whatSchemathesisFoundIsA400NotA503() throws {
        #expect(throws: APIError.self, "a position past int4") { try PageCursor.number("n584084942505", marker: "n", range: 0...Int64(Int32.max)) }
        #expect(try PageCursor.number("n2147483647", marker: "n", range: 0...Int64(Int32.max)) == 2_147_483_647)
        #expect(throws: APIError.self, "an empty number") { try APIHandlers.integer("", name: "after", range: 0...10, default: 0) }
        #expect(try PageCursor.name("kff41") == "\u{FFFD}A", "hex that is not UTF-8 is still a place in the order")
        #expect(try PageCursor.name("k0041") == "A", "a NUL is left out: PostgreSQL takes none")
        #expect(WebhookDraft.urlProblem("http://\u{1F3FB}example.com/hook") == nil, "an emoji modifier after the scheme hides nothing")
        #expect(WebhookDraft.urlProblem("ftp://example.com") != nil)
    }
}
