import Baton
import BatonPostgres
import BatonStore
import Foundation
import Testing

extension Integration {
    /// The run page's signal button, for a signed-in token with the operate scope like cancel and retry.
    @Suite("dashboard signals on real services", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct DashboardSignalTests {
        @Test func theSignalButtonNeedsTheOperateScopeAndDelivers() throws {
            _ = try Chromium.executable()
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let store = try TestCluster.store()
            defer { store.close() }
            let sql = try TestCluster.sql()
            defer { sql.close() }
            func signals(_ runID: String) throws -> Int {
                try sql.query("select count(*)::int as n from baton.requests where run_id = $1::uuid and kind = 'signal'", [runID]).int(0, "n") ?? -1
            }
            let runID = try TestCluster.submit(try GraphFixtures.example("wait-for-approval.json"))
            try TestCluster.waitUntil(30, "approve to wait") { try TestCluster.nodes(store, runID)["approve"]?.status == "waiting" }

            let token = try Integration.APITests.token("dash-signal", "read,operate")
            let reader = try Integration.APITests.token("dash-signal-reader", "read")
            let port = try DashboardTests.startDashboard(cluster, [], name: "dashboard-signal")
            func post(_ node: String, _ body: String = "", token given: String? = token) throws -> HTTPExchange.Reply {
                try HTTPExchange.request(
                    "POST", port: port, "/api/runs/\(runID)/signal?node=\(node)",
                    headers: given.map { ["Authorization": "Bearer \($0)", "Content-Type": "application/json"] } ?? [:], body: body)
            }
            #expect(try post("approve", token: nil).status == 401)
            #expect(try post("approve", token: "wrong").status == 401)
            #expect(try post("approve", token: reader).status == 403)
            let notSignal = try post("draft")
            #expect(notSignal.status == 409)
            #expect(notSignal.body.contains("node 'draft' is not a signal node (it runs baton.echo)"))
            #expect(try post("ghost").status == 404)
            let badJSON = try post("approve", "{oops")
            #expect(badJSON.status == 400 && badJSON.body.contains("the signal's value is not JSON"))
            #expect(try signals(runID) == 0)

            // In the browser: the node panel of a waiting signal node has the form; it sends with the token.
            let browser = try ChromiumSession(url: "http://127.0.0.1:\(port)/login")
            defer { browser.close() }
            try DashboardTests.signIn(browser, token: token)
            try browser.waitFor(15, "the runs page", "document.body.dataset.page") { $0 == "runs" }
            _ = try browser.evaluate("location.assign('/runs/\(runID)#node=approve'); true")
            try browser.waitFor(15, "the signal form", "!!document.getElementById('signal-send')") { $0 == true }
            _ = try browser.evaluate(
                #"(() => { document.getElementById('signal-value').value = '{"by": "web"}'; document.getElementById('signal-send').click(); return true })()"#
            )
            try browser.waitFor(30, "the page to show the run succeeded", "document.getElementById('run-status').textContent") { $0 == "succeeded" }
            #expect(try TestCluster.waitForRun(runID, store: store, seconds: 30) == "succeeded")
            #expect(try TestCluster.nodes(store, runID)["publish"]?.output == ["title": "release 1.2", "approved_by": "web"])
            try browser.waitFor(15, "the form to go once the node succeeded", "!!document.getElementById('signal-send')") { $0 == false }
            let late = try post("approve")
            #expect(late.status == 409 && late.body.contains("already ended (succeeded)"))
            #expect(try signals(runID) == 1)
        }
    }
}
