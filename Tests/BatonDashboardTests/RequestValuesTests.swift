import Baton
import BatonDashboard
import BatonHTTP
import Testing

/// What a request decides, as plain values: parameters, paging, run ids, who may act.
@Suite("dashboard request values")
struct RequestValuesTests {
    @Test func runsQueryDefaultsAndParsing() throws {
        #expect(try RunsQuery(parameters: [:]) == RunsQuery())
        let q = try RunsQuery(parameters: ["status": "failed", "name": "  word ", "page": "3", "per_page": "20"])
        #expect(q == RunsQuery(status: .failed, name: "word", page: 3, perPage: 20))
        #expect(q.offset == 40)
        #expect(q.pageCount(total: 0) == 1 && q.pageCount(total: 20) == 1 && q.pageCount(total: 21) == 2)
        #expect(q.queryString(page: 4) == "?status=failed&name=word&page=4&per_page=20")
        #expect(try RunsQuery(parameters: ["status": "", "name": "", "page": ""]) == RunsQuery())
        #expect(RunsQuery(name: "a b&c=<d>").queryString() == "?name=a%20b%26c%3D%3Cd%3E")
    }

    @Test(arguments: [
        (["status": "done"], "status: unknown run status 'done' (use pending, running, succeeded, failed, cancelled)"),
        (["page": "0"], "page: '0' is not a whole number from 1 to 1000000"),
        (["page": "x"], "page: 'x' is not a whole number from 1 to 1000000"),
        (["per_page": "501"], "per_page: '501' is not a whole number from 1 to 500"),
        (["name": String(repeating: "n", count: 201)], "name: longer than 200 characters"),
    ])
    func badRunsQueriesAre400(_ parameters: [String: String], _ message: String) {
        #expect(throws: DashboardError(status: 400, message)) { try RunsQuery(parameters: parameters) }
    }

    @Test func runIDs() throws {
        #expect(try RunID(parsing: "C7E6109A-A328-4847-B185-1824586D7156").value == "c7e6109a-a328-4847-b185-1824586d7156")
        for bad in ["c7e6109a", "zz", "", "c7e6109a-a328-4847-b185-1824586d715g", "'; drop table baton.runs; --"] {
            #expect(throws: DashboardError.self) { try RunID(parsing: bad) }
            #expect((try? RunID(parsing: bad)) == nil)
        }
        #expect(throws: DashboardError(status: 400, "'zz' is not a run id (a UUID)")) { try RunID(parsing: "zz") }
    }

    @Test func queryStringsDecodeAsBrowsersEncode() {
        #expect(QueryParameters.parse("name=word+count&status=failed&name=second") == ["name": "word count", "status": "failed"])
        #expect(QueryParameters.parse("key=each%2F0&empty=&flag") == ["key": "each/0", "empty": "", "flag": ""])
        #expect(QueryParameters.parse("bad=%E0%A4%A") == [:])
        #expect(QueryParameters.parse(nil) == [:])
    }

    @Test func adminAccessNeedsASignedInTokenWithOperate() {
        let ops = Viewer(name: "ops", scopes: [.read, .operate], hasSession: true)
        #expect(AdminAccess.decide(viewer: ops, needs: .operate) == .allowed)
        #expect(AdminAccess.decide(viewer: Viewer(name: "root", scopes: [.admin]), needs: .operate) == .allowed)
        #expect(AdminAccess.decide(viewer: nil, needs: .operate) == .notSignedIn)
        #expect(AdminAccess.decide(viewer: .anonymous, needs: .operate) == .notSignedIn, "--public-read lets nobody act")
        let reader = AdminAccess.decide(viewer: Viewer(name: "ci", scopes: [.read, .submit]), needs: .operate)
        #expect(reader == .lacksScope(token: "ci", scope: .operate))
        #expect(reader.error == DashboardError(status: 403, "token 'ci' lacks the operate scope this needs"))
        #expect(AdminAccess.decide(viewer: nil, needs: .operate).error?.status == 401)
        // From the dashboard's own page: allowed; from another site: refused even when signed in.
        #expect(
            AdminAccess.decide(viewer: ops, needs: .operate, origin: "https://127.0.0.1:8080", host: "127.0.0.1:8080", fetchSite: "same-origin")
                == .allowed)
        #expect(AdminAccess.decide(viewer: ops, needs: .operate, origin: "http://evil.example", host: "127.0.0.1:8080") == .crossSite)
        #expect(AdminAccess.decide(viewer: ops, needs: .operate, origin: "null", host: "127.0.0.1:8080") == .crossSite)
        #expect(AdminAccess.decide(viewer: ops, needs: .operate, fetchSite: "cross-site") == .crossSite)
        #expect(AdminAccess.decide(viewer: ops, needs: .operate, fetchSite: "same-site") == .crossSite)
        #expect(
            AdminAccess.decide(viewer: ops, needs: .operate, origin: "null", host: "127.0.0.1:8080", fetchSite: "same-origin") == .allowed,
            "a form posted under Referrer-Policy: no-referrer says Origin: null; Sec-Fetch-Site decides")
        #expect(
            AdminAccess.decide(viewer: ops, needs: .operate, origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080", fetchSite: "cross-site")
                == .crossSite)
    }

    @Test func signInGateRedirectsPagesAndRefusesTheInternalAPI() {
        #expect(SignInGate.decide(path: "/", query: nil, signedIn: false, publicRead: false) == .signIn(next: "/"))
        #expect(SignInGate.decide(path: "/runs/x", query: "a=1", signedIn: false, publicRead: false) == .signIn(next: "/runs/x?a=1"))
        #expect(SignInGate.decide(path: "/api/runs", query: nil, signedIn: false, publicRead: false) == .unauthorized)
        #expect(SignInGate.decide(path: "/api/runs", query: nil, signedIn: true, publicRead: false) == .pass)
        #expect(SignInGate.decide(path: "/workers", query: nil, signedIn: false, publicRead: true) == .pass)
        for open in ["/login", "/logout", "/assets/dashboard.js", "/api/v1/runs"] {
            #expect(SignInGate.decide(path: open, query: nil, signedIn: false, publicRead: false) == .pass, "\(open)")
        }
        #expect(SignInGate.safeNext("/runs/abc?x=1") == "/runs/abc?x=1")
        for bad in [nil, "", "https://evil.example/", "//evil.example/", "/\\evil.example", "javascript:alert(1)", "/a b"] {
            #expect(SignInGate.safeNext(bad) == "/", "\(bad ?? "nil")")
        }
    }

    @Test func adminActionsFollowTheRunsStatus() {
        #expect(AdminAction.available(for: .running) == [.cancel])
        #expect(AdminAction.available(for: .pending) == [.cancel])
        #expect(AdminAction.available(for: .failed) == [.retry])
        #expect(AdminAction.available(for: .cancelled) == [.retry])
        #expect(AdminAction.available(for: .succeeded) == [])
        #expect(AdminAction.cancel.refusal(runID: "r", status: .succeeded)?.status == 409)
        #expect(AdminAction.retry.refusal(runID: "r", status: .running)?.message == "run r is running; only a failed or cancelled run can be retried")
    }

    @Test func hostCheckOnLoopback() throws {
        let check = HostCheck(listen: ListenAddress(host: "127.0.0.1", port: 8080))
        for good in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080", "127.0.0.1", "localhost"] {
            #expect(check.allows(good), "\(good)")
        }
        for bad in [nil, "evil.example", "evil.example:8080", "127.0.0.1.evil.example:8080", "localhost:80x", "localhostx:8080"] {
            #expect(!check.allows(bad), "\(bad ?? "nil")")
        }
        #expect(HostCheck(listen: ListenAddress(host: "0.0.0.0", port: 8080)).allows("dashboard.internal:8080"))
    }

    @Test func displayTimes() {
        #expect(DisplayTime.seconds("1970-01-01 00:01:40+00") == 100)
        #expect(DisplayTime.seconds("1970-01-01 00:01:40.25+00") == 100.25)
        #expect(DisplayTime.seconds("nonsense") == nil)
        #expect(DisplayTime.short("2026-11-23 19:35:41.806314+00") == "2026-11-23 19:35:41")
        #expect(DisplayTime.duration(0.42) == "0.4 s" && DisplayTime.duration(42) == "42 s")
        #expect(DisplayTime.duration(184) == "3 min 4 s" && DisplayTime.duration(7500) == "2 h 5 min")
        #expect(DisplayTime.duration(from: "1970-01-01 00:00:00+00", to: "1970-01-01 00:00:30+00", now: 0) == "30 s")
        #expect(DisplayTime.duration(from: "1970-01-01 00:00:00+00", to: nil, now: 12) == "12 s")
        #expect(DisplayTime.duration(from: nil, to: nil, now: 12) == "")
    }
}
