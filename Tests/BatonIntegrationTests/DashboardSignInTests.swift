import Baton
import BatonDashboard
import BatonStore
import Foundation
import Testing

extension Integration.DashboardTests {
    // Sign-in, sessions, scopes and the audit trail (split from DashboardTests.swift: same suite, serialized).
    @Test func publicReadOpensReadsAndNothingElse() throws {
        let cluster = TestCluster()
        defer { cluster.stopAll() }
        let port = try Self.startDashboard(cluster)
        #expect(try HTTPExchange.request(port: port, "/api/v1/runs").status == 200)
        #expect(try HTTPExchange.request(port: port, "/api/runs").status == 200)
        let page = try HTTPExchange.request(port: port, "/")
        #expect(page.status == 200 && page.body.contains("href=\"/login\"") && page.body.contains("data-operate=\"false\""))
        #expect(try HTTPExchange.request(port: port, "/api/v1/tokens").status == 401, "admin reads still need a token")
        let submit = try HTTPExchange.request(
            "POST", port: port, "/api/v1/runs", headers: ["Content-Type": "application/json"], body: #"{"graph": {"nodes": {}}}"#)
        #expect(submit.status == 401)
        #expect(try HTTPExchange.request(port: port, "/api/v1/runs", headers: ["Authorization": "Bearer wrong"]).status == 401)
        let closed = try Self.startDashboard(cluster, [], name: "dashboard-closed")
        #expect(try HTTPExchange.request(port: closed, "/api/v1/runs").status == 401)
    }

    @Test func theAuditTrailIsForAdminTokens() throws {
        let cluster = TestCluster()
        defer { cluster.stopAll() }
        let port = try Self.startDashboard(cluster, [], name: "dashboard-audit")
        let admin = try Integration.APITests.token("audit-admin", "admin")
        let reader = try Integration.APITests.token("audit-reader", "read")
        let readerCookie = try Self.sessionCookie(port: port, token: reader)
        _ = try Self.sessionCookie(port: port, token: reader)
        // The page: in the admin's top bar, refused to a reader.
        let asAdmin = ["Authorization": "Bearer \(admin)"]
        #expect(try HTTPExchange.request(port: port, "/", headers: asAdmin).body.contains("href=\"/audit\""))
        #expect(!(try HTTPExchange.request(port: port, "/", headers: ["Cookie": readerCookie]).body.contains("href=\"/audit\"")))
        #expect(try HTTPExchange.request(port: port, "/audit", headers: ["Cookie": readerCookie]).status == 403)
        let page = try HTTPExchange.request(port: port, "/audit", headers: asAdmin)
        #expect(page.status == 200 && page.body.contains("<td class=\"mono\">session.start</td>") && page.body.contains("<td>audit-reader</td>"))
        // The API: admin only, filtered, a page at a time.
        #expect(try HTTPExchange.request(port: port, "/api/v1/audit", headers: ["Authorization": "Bearer \(reader)"]).status == 403)
        let first = try HTTPExchange.request(port: port, "/api/v1/audit?action=session.start&token_name=audit-reader&limit=1", headers: asAdmin)
        #expect(first.status == 200, "\(first.body)")
        let json = try first.json()
        let entries = try #require(json["entries"]?.arrayValue)
        #expect(entries.count == 1 && entries[0]["action"] == "session.start" && entries[0]["token_name"] == "audit-reader")
        #expect(entries[0]["status"] == 303 && entries[0]["detail"] == [:] && entries[0]["source"]?.stringValue?.hasPrefix("127.0.0.1:") == true)
        let cursor = try #require(json["next_cursor"]?.stringValue)
        let second = try HTTPExchange.request(
            port: port, "/api/v1/audit?action=session.start&token_name=audit-reader&limit=1&cursor=\(cursor)", headers: asAdmin
        ).json()
        let older = try #require(second["entries"]?.arrayValue)
        #expect(older.count == 1 && (older[0]["id"]?.intValue ?? 0) < (entries[0]["id"]?.intValue ?? 0))
        for bad in ["cursor=zz", "action=DROP", "limit=0", "token_name=Bad%20Name"] {
            #expect(try HTTPExchange.request(port: port, "/api/v1/audit?\(bad)", headers: asAdmin).status == 400, "\(bad)")
        }
    }

    @Test func aSessionEndsWithItsOwnExpiryOrItsTokens() throws {
        let cluster = TestCluster()
        defer { cluster.stopAll() }
        let port = try Self.startDashboard(cluster, [], name: "dashboard-expiry")
        let sql = try TestCluster.sql()
        defer { sql.close() }
        let token = try Integration.APITests.token("expiring-reader", "read")
        _ = try sql.execute(
            "update baton.tokens set expires_at = now() + interval '1 hour' where name = 'expiring-reader' and revoked_at is null")
        func secret(_ cookie: String) -> String { String(cookie.dropFirst("baton_session=".count)) }
        // Never beyond the token's expiry (1 h here, not 12 h).
        let first = try Self.sessionCookie(port: port, token: token)
        let bounded = try sql.query(
            "select (s.expires_at = t.expires_at)::text as same from baton.sessions s join baton.tokens t on t.id = s.token_id "
                + "where s.hash = sha256(convert_to($1, 'UTF8'))", [secret(first)])
        #expect(bounded[row: 0, column: "same"] == "true")
        #expect(try HTTPExchange.request(port: port, "/", headers: ["Cookie": first]).status == 200)
        // The session's own expiry.
        _ = try sql.execute(
            "update baton.sessions set expires_at = now() - interval '1 second' where hash = sha256(convert_to($1, 'UTF8'))", [secret(first)])
        #expect(try HTTPExchange.request(port: port, "/", headers: ["Cookie": first]).status == 303)
        // The token's expiry ends a session that has not expired.
        let second = try Self.sessionCookie(port: port, token: token)
        #expect(try HTTPExchange.request(port: port, "/", headers: ["Cookie": second]).status == 200)
        _ = try sql.execute(
            "update baton.tokens set expires_at = now() - interval '1 second' where name = 'expiring-reader' and revoked_at is null")
        #expect(try HTTPExchange.request(port: port, "/", headers: ["Cookie": second]).status == 303)
        #expect(try Self.signIn(port: port, token: token).status == 401, "an expired token cannot sign in")
    }

    /// Signs in over HTTP (`POST /login`) and returns the reply (303 and the cookie, or the form again).
    static func signIn(port: Int, token: String, next: String = "/") throws -> HTTPExchange.Reply {
        let form =
            "token=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")&next=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        return try HTTPExchange.request(
            "POST", port: port, "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: form)
    }

    /// The `Cookie` header of a session made by signing in with `token`.
    static func sessionCookie(port: Int, token: String) throws -> String {
        let reply = try signIn(port: port, token: token)
        try #require(reply.status == 303, "\(reply.status) \(reply.body)")
        let cookie = try #require(reply.headers["set-cookie"])
        return String(cookie.prefix { $0 != ";" })
    }

    /// Signs the browser in through the page's form (it lands on `next`).
    static func signIn(_ browser: ChromiumSession, token: String) throws {
        try browser.waitFor(15, "the sign-in form", "!!document.getElementById('login-form')") { $0 == true }
        _ = try browser.evaluate(
            "(() => { document.getElementById('token').value = '\(token)'; document.getElementById('login-form').requestSubmit(); return true })()"
        )
    }

    @Test func signInThenTheOperateScopeReallyCancelsAndRetries() throws {
        let cluster = TestCluster()
        defer { cluster.stopAll() }
        try cluster.startCoordinator()
        try cluster.startWorker()
        let store = try TestCluster.store()
        defer { store.close() }
        let sql = try TestCluster.sql()
        defer { sql.close() }
        func requests(_ runID: String) throws -> Int {
            try sql.query("select count(*) as n from baton.requests where run_id = $1::uuid", [runID]).int(0, "n") ?? -1
        }
        let runID = try TestCluster.submit([
            "name": "long nap", "nodes": ["nap": ["procedure": "baton.sleep", "input": ["seconds": 300]]],
        ])
        try TestCluster.waitUntil(30, "the nap to start") { try store.nodes(ofRun: runID).first?.status == "running" }

        // Not signed in: pages go to the sign-in form, the dashboard's JSON and actions answer 401.
        let port = try Self.startDashboard(cluster, [])
        let path = "/api/runs/\(runID)/cancel"
        let away = try HTTPExchange.request(port: port, "/runs/\(runID)")
        #expect(away.status == 303 && away.headers["location"] == "/login?next=/runs/\(runID)", "\(away)")
        #expect(try HTTPExchange.request(port: port, "/api/runs").status == 401)
        #expect(try HTTPExchange.request("POST", port: port, path).status == 401)
        #expect(try HTTPExchange.request(port: port, "/login").body.contains("id=\"login-form\""))
        // A wrong or unknown token: the form again, with one line, 401.
        for wrong in ["wrong", "baton_" + String(repeating: "A", count: 43)] {
            let refused = try Self.signIn(port: port, token: wrong)
            #expect(refused.status == 401 && refused.body.contains("id=\"login-error\"") && refused.headers["set-cookie"] == nil, "\(refused)")
        }
        // A read token: it reads (bearer or session), but has no buttons and its POSTs are 403.
        let reader = try Integration.APITests.token("dash-reader", "read")
        #expect(try HTTPExchange.request(port: port, "/api/runs", headers: ["Authorization": "Bearer \(reader)"]).status == 200)
        let readerCookie = try Self.sessionCookie(port: port, token: reader)
        let readerPage = try HTTPExchange.request(port: port, "/runs/\(runID)", headers: ["Cookie": readerCookie])
        #expect(readerPage.status == 200 && !readerPage.body.contains("data-action=") && readerPage.body.contains("id=\"sign-out\""))
        let lacks = try HTTPExchange.request("POST", port: port, path, headers: ["Cookie": readerCookie])
        #expect(lacks.status == 403 && lacks.body.contains("token 'dash-reader' lacks the operate scope"), "\(lacks)")
        // An operate token: the cookie's flags; refused from another site; a 409 for a running run's retry.
        let operatorToken = try Integration.APITests.token("dash-ops", "read,operate")
        let signedIn = try Self.signIn(port: port, token: operatorToken, next: "/runs/\(runID)")
        #expect(signedIn.status == 303 && signedIn.headers["location"] == "/runs/\(runID)")
        let setCookie = try #require(signedIn.headers["set-cookie"])
        #expect(setCookie.hasPrefix("baton_session=baton_") && setCookie.contains("Max-Age=43200") && setCookie.contains("Path=/"))
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && !setCookie.contains("Secure"), "\(setCookie)")
        let cookie = String(setCookie.prefix { $0 != ";" })
        let stored = try sql.query(
            "select count(*)::int as n from baton.sessions where hash = sha256(convert_to($1, 'UTF8'))",
            [String(cookie.dropFirst("baton_session=".count))])
        #expect(stored.int(0, "n") == 1, "only the cookie's hash is stored")
        #expect(
            try HTTPExchange.request("POST", port: port, path, headers: ["Cookie": cookie, "Origin": "http://evil.example"]).status == 403)
        #expect(try HTTPExchange.request("POST", port: port, path, headers: ["Cookie": cookie, "Sec-Fetch-Site": "cross-site"]).status == 403)
        #expect(try requests(runID) == 0)
        #expect(try store.runStatus(runID) == .running)
        #expect(try HTTPExchange.request("POST", port: port, "/api/runs/\(runID)/retry", headers: ["Cookie": cookie]).status == 409)
        let page = try HTTPExchange.request(port: port, "/runs/\(runID)", headers: ["Cookie": cookie]).body
        #expect(page.contains("data-action=\"cancel\">Cancel run") && page.contains("data-action=\"retry\" hidden>"))

        // In the browser: signed in through the form, it lands on the run with its buttons.
        let browser = try ChromiumSession(url: "http://127.0.0.1:\(port)/runs/\(runID)")
        defer { browser.close() }
        let cancelButton = "document.querySelector('button[data-action=cancel]')"
        try Self.signIn(browser, token: operatorToken)
        try browser.waitFor(15, "the cancel button", "[\(cancelButton).hidden, \(cancelButton).disabled]") { $0 == [false, false] }
        #expect(try browser.evaluate("document.cookie") == "", "the session cookie is HttpOnly")
        _ = try browser.evaluate("window.confirm = () => true; true")

        // With the token: the run is really cancelled (from the page), then really retried.
        _ = try browser.evaluate("\(cancelButton).click(); true")
        try browser.waitFor(30, "the page to show the run cancelled", "document.getElementById('run-status').textContent") {
            $0 == "cancelled"
        }
        #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "cancelled")
        #expect(try browser.evaluate("document.querySelector('button[data-action=retry]').hidden") == false)
        #expect(try store.nodes(ofRun: runID).first?.error?.contains("by request (baton dashboard)") == true)
        let audited = try sql.query(
            "select token_name, source from baton.audit where action = 'run.cancel' and target = $1", [runID])
        #expect(audited.rowCount == 1 && audited[row: 0, column: "token_name"] == "dash-ops", "the cancel is in the audit trail")
        #expect(audited[row: 0, column: "source"]?.hasSuffix("(dashboard)") == true)
        let retry = try HTTPExchange.request("POST", port: port, "/api/runs/\(runID)/retry", headers: ["Cookie": cookie])
        #expect(retry.status == 202, "\(retry.body)")
        try TestCluster.waitUntil(30, "the retried nap to run again") {
            try store.runStatus(runID) == .running && store.nodes(ofRun: runID).first?.status == "running"
        }
        #expect(try store.nodes(ofRun: runID).first?.attempts == 2)
        // And cancelled again, to end it.
        #expect(try HTTPExchange.request("POST", port: port, path, headers: ["Authorization": "Bearer \(operatorToken)"]).status == 202)
        #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "cancelled")
        #expect(try requests(runID) == 3)

        // Signing out ends the session; revoking a token ends its sessions.
        let out = try HTTPExchange.request("POST", port: port, "/logout", headers: ["Cookie": cookie])
        #expect(out.status == 303 && out.headers["location"] == "/login" && out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        #expect(try HTTPExchange.request(port: port, "/runs/\(runID)", headers: ["Cookie": cookie]).status == 303)
        #expect(try HTTPExchange.request(port: port, "/", headers: ["Cookie": readerCookie]).status == 200)
        #expect(try TestCluster.cli(["token", "revoke", "dash-reader"]).status == 0)
        #expect(try HTTPExchange.request(port: port, "/", headers: ["Cookie": readerCookie]).status == 303)
        #expect(try HTTPExchange.request(port: port, "/api/workers", headers: ["Cookie": readerCookie]).status == 401)
    }
}
