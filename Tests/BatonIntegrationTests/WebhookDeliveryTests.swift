import Baton
import BatonStore
import BatonWebhooks
import Foundation
import Testing

extension Integration {
    /// Webhooks on real services: the trigger's outbox, the coordinator's deliveries to a live HTTP
    /// receiver (signed, retried with back-off while it fails, every attempt recorded), the kinds and
    /// the name filter, and a deleted webhook getting nothing more.
    @Suite("webhooks", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct WebhookDeliveryTests {
        static let secret = "whsec_integration_0123456789"
        /// Retries 0.3 s, 0.9 s, 1.8 s… after a failure (the default base is 10 s).
        static let retryBase = 0.3

        static func startCluster() throws -> TestCluster {
            let cluster = TestCluster()
            try cluster.start(["coordinator", "--webhook-retry-base", String(retryBase)], name: "coordinator")
            try cluster.startWorker()
            return cluster
        }

        /// `baton webhook add` with `arguments`; the new id.
        static func add(_ url: String, _ arguments: [String]) throws -> Int64 {
            let made = try TestCluster.cli(["webhook", "add", url, "--secret", secret] + arguments)
            try #require(made.status == 0, "\(made.stderr)")
            return try #require(Int64(made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(made.stdout)")
        }

        static func deliveries(_ id: Int64) throws -> [JSON] {
            let listed = try TestCluster.cli(["webhook", "deliveries", String(id), "--json"])
            try #require(listed.status == 0, "\(listed.stderr)")
            return try JSONParser.parse(listed.stdout).arrayValue ?? []
        }

        static func failing(_ name: String) -> JSON {
            ["name": .string(name), "nodes": ["div": ["procedure": "demo.divide", "input": ["dividend": 1, "divisor": 0]]]]
        }

        @Test("a failed run reaches a live receiver signed within seconds, is retried with back-off while it answers 500, every attempt recorded")
        func failedRunIsDeliveredAndRetried() throws {
            let cluster = try Self.startCluster()
            defer { cluster.stopAll() }
            let receiver = try WebhookReceiver(failFirst: 3)
            defer { receiver.stop() }
            let tag = String(UUID().uuidString.prefix(8)).lowercased()
            let hook = try Self.add(receiver.url, ["--events", "run.failed", "--filter", "name=wh-fail-\(tag)*"])
            defer { _ = try? TestCluster.cli(["webhook", "delete", String(hook)]) }
            let store = try TestCluster.store()
            defer { store.close() }

            let runID = try TestCluster.submit(Self.failing("wh-fail-\(tag)"))
            #expect(try TestCluster.waitForRun(runID, store: store) == "failed")
            let ended = Date()
            try TestCluster.waitUntil(5, "the first delivery") { !receiver.posts.isEmpty }
            #expect(Date().timeIntervalSince(ended) < 5, "a failure reaches the receiver within seconds")
            try TestCluster.waitUntil(20, "four attempts (three answered 500)") { receiver.posts.count >= 4 }
            try TestCluster.waitUntil(10, "the delivery to be recorded as delivered") {
                try Self.deliveries(hook).first?["state"] == "delivered"
            }
            let posts = receiver.posts
            #expect(posts.count == 4, "no post after the 200: \(posts.count)")

            // One event, the same bytes and id every time, each signed over its exact body.
            let eventID = try TestCluster.sql().query(
                "select 'evt_' || id as id from baton.events where run_id = $1::uuid and kind = 'run_failed'", [runID])[row: 0, column: "id"]
            let signer = WebhookSigner(secret: Self.secret)
            for (i, post) in posts.enumerated() {
                #expect(post.headers["baton-event-id"] == eventID && post.headers["baton-delivery-attempt"] == String(i + 1))
                #expect(post.body == posts[0].body)
                let signature = try #require(post.headers["baton-signature"])
                #expect(signer.verify(header: signature, body: post.body, now: Int64(Date().timeIntervalSince1970)), "\(signature)")
                #expect(
                    !WebhookSigner(secret: "whsec_some_other_secret").verify(
                        header: signature, body: post.body, now: Int64(Date().timeIntervalSince1970)))
            }
            let event = try JSONParser.parse(posts[0].text)
            #expect(event["id"] == eventID.map(JSON.string) && event["type"] == "run.failed" && event["node"] == .null)
            #expect(
                event["run"]?["id"] == .string(runID) && event["run"]?["status"] == "failed" && event["run"]?["name"] == .string("wh-fail-\(tag)"))
            #expect(event["run"]?["error"]?.stringValue?.contains("division by zero") == true)

            // Back-off: each wait at least the policy's (0.3, 0.9, 1.8 s), and growing.
            let gaps = zip(posts.dropFirst(), posts).map { $0.at.timeIntervalSince($1.at) }
            let policy = DeliveryPolicy(base: Self.retryBase)
            for (i, gap) in gaps.enumerated() { #expect(gap >= policy.backoff(afterAttempt: i + 1) - 0.05, "wait \(i + 1): \(gap) s") }
            #expect(gaps[2] > gaps[0], "\(gaps)")

            let delivery = try #require(try Self.deliveries(hook).first)
            #expect(delivery["attempts"] == 4 && delivery["last_status"] == 200 && delivery["next_attempt_at"] == .null)
            let history = delivery["history"]?.arrayValue ?? []
            #expect(history.map { $0["status"]?.intValue ?? 0 } == [500, 500, 500, 200], "\(history)")
            #expect(history.allSatisfy { $0["coordinator"]?.stringValue?.isEmpty == false })
            let table = try TestCluster.cli(["webhook", "deliveries", String(hook)])
            #expect(table.stdout.contains("500,500,500,200") && table.stdout.contains("delivered"), "\(table.stdout)")

            // The outbox row is written in the event's own transaction: rolled back with it.
            let sql = try TestCluster.sql()
            func outbox() throws -> Int {
                try sql.query("select count(*)::int as n from baton.webhook_deliveries where webhook_id = $1::bigint", [String(hook)]).int(0, "n")
                    ?? -1
            }
            _ = try sql.execute("begin")
            _ = try sql.execute(
                "insert into baton.events (run_id, kind, detail, run_submitted_at) select id, 'run_failed', '{}', submitted_at from baton.runs where id = $1::uuid",
                [runID])
            #expect(try outbox() == 2, "the trigger wrote a delivery in the transaction")
            _ = try sql.execute("rollback")
            #expect(try outbox() == 1, "and it went with the rollback")

            // Ended deliveries are kept 7 days, then pruned with their attempts.
            #expect(try store.pruneDeliveries(olderThan: 7 * 86_400) == 0)
            _ = try sql.execute(
                "update baton.webhook_deliveries set created_at = now() - interval '8 days' where webhook_id = $1::bigint", [String(hook)])
            #expect(try store.pruneDeliveries(olderThan: 7 * 86_400) == 1)
            #expect(try outbox() == 0)
            #expect(
                try sql.query(
                    "select count(*)::int as n from baton.webhook_attempts a where not exists (select 1 from baton.webhook_deliveries d where d.id = a.delivery_id)"
                )
                .int(0, "n") == 0)
        }

        @Test("the kinds and the name filter select: retrying, signal waiting, a final timeout as node.failed, the run's failure; nothing for others")
        func kindsAndFilterSelect() throws {
            let cluster = try Self.startCluster()
            defer { cluster.stopAll() }
            let receiver = try WebhookReceiver()
            defer { receiver.stop() }
            let tag = String(UUID().uuidString.prefix(8)).lowercased()
            let all = try Self.add(receiver.url + "?all", ["--events", "all", "--filter", "name=wh-kinds-\(tag)"])
            let succeeded = try Self.add(receiver.url + "?ok", ["--events", "run.succeeded", "--filter", "name=wh-kinds-\(tag)"])
            let otherName = try Self.add(receiver.url + "?other", ["--events", "all", "--filter", "name=wh-other-\(tag)-?"])
            defer { for id in [all, succeeded, otherName] { _ = try? TestCluster.cli(["webhook", "delete", String(id)]) } }
            let store = try TestCluster.store()
            defer { store.close() }

            let graph: JSON = [
                "name": .string("wh-kinds-\(tag)"),
                "nodes": [
                    "flaky": [
                        "procedure": "baton.fail", "input": ["message": "busy", "succeed_on_attempt": 2],
                        "retry": ["attempts": 2, "wait": ["constant": "100ms"]],
                    ],
                    "approve": ["signal": "approval", "timeout": "1s", "retry": ["attempts": 2, "wait": ["constant": "100ms"]]],
                ],
            ]
            let runID = try TestCluster.submit(graph)
            #expect(try TestCluster.waitForRun(runID, store: store) == "failed")
            // flaky retries once; approve times out, retries, times out again (only the last is a failure).
            let expected = ["node.retrying", "node.retrying", "signal.waiting", "signal.waiting", "node.failed", "run.failed"].sorted()
            try TestCluster.waitUntil(10, "six deliveries to the all-kinds webhook") { try Self.deliveries(all).count >= expected.count }
            let rows = try Self.deliveries(all)
            #expect(rows.map { $0["type"]?.stringValue ?? "" }.sorted() == expected, "\(rows.map { $0["type"] ?? .null })")
            try TestCluster.waitUntil(10, "every delivery made") { try Self.deliveries(all).allSatisfy { $0["state"] == "delivered" } }
            let bodies = receiver.posts.map { try? JSONParser.parse($0.text) }
            let failedNode = try #require(bodies.compactMap { $0 }.first { $0["type"] == "node.failed" })
            #expect(failedNode["node"]?["key"] == "approve", "the final timed_out, not the retried attempt of flaky")
            #expect(failedNode["node"]?["error"]?.stringValue?.contains("timed out: no signal 'approval'") == true, "\(failedNode)")
            #expect(failedNode["node"]?["attempt"] == 2)
            let retrying = bodies.compactMap { $0 }.filter { $0["type"] == "node.retrying" }
            let flaky = try #require(retrying.first { $0["node"]?["key"] == "flaky" })
            #expect(flaky["node"]?["attempt"] == 1 && flaky["node"]?["procedure"] == "baton.fail" && flaky["node"]?["error"] == "busy")
            #expect(retrying.contains { $0["node"]?["key"] == "approve" && $0["node"]?["attempt"] == 1 }, "the first timeout is a retry")

            // A run of another name, and the run.succeeded webhook for a run that failed: nothing.
            let other = try TestCluster.submit(Self.failing("wh-other-\(tag)-long"))
            #expect(try TestCluster.waitForRun(other, store: store) == "failed")
            let matching = try TestCluster.submit(Self.failing("wh-other-\(tag)-1"))
            #expect(try TestCluster.waitForRun(matching, store: store) == "failed")
            try TestCluster.waitUntil(10, "the matching run's deliveries") { try Self.deliveries(otherName).count == 2 }
            #expect(try Self.deliveries(otherName).allSatisfy { $0["run_id"] == .string(matching) }, "`?` is one character: -long is not -?")
            #expect(try Self.deliveries(succeeded).isEmpty)
        }

        @Test("a deleted webhook's pending deliveries are dropped and nothing more is posted to it")
        func deletingStopsDeliveries() throws {
            let cluster = try Self.startCluster()
            defer { cluster.stopAll() }
            let failing = try WebhookReceiver(failFirst: 1_000)
            defer { failing.stop() }
            let control = try WebhookReceiver()
            defer { control.stop() }
            let tag = String(UUID().uuidString.prefix(8)).lowercased()
            let doomed = try Self.add(failing.url, ["--events", "run.failed", "--filter", "name=wh-del-\(tag)*"])
            let kept = try Self.add(control.url, ["--events", "run.failed", "--filter", "name=wh-del-\(tag)*"])
            defer { _ = try? TestCluster.cli(["webhook", "delete", String(kept)]) }
            let store = try TestCluster.store()
            defer { store.close() }

            let first = try TestCluster.submit(Self.failing("wh-del-\(tag)-1"))
            #expect(try TestCluster.waitForRun(first, store: store) == "failed")
            try TestCluster.waitUntil(10, "the failing receiver to be tried twice") { failing.posts.count >= 2 }
            let deleted = try TestCluster.cli(["webhook", "delete", String(doomed)])
            #expect(deleted.status == 0 && deleted.stdout == "webhook \(doomed) deleted\n", "\(deleted.stderr)")
            let after = failing.posts.count
            #expect(
                try TestCluster.sql().query("select count(*)::int as n from baton.webhook_deliveries where webhook_id = $1::bigint", [String(doomed)])
                    .int(0, "n") == 0)
            // The kept webhook is the clock: once it has the second run's event, the deleted one's retries
            // (due every 0.3–1.8 s) would have come.
            let second = try TestCluster.submit(Self.failing("wh-del-\(tag)-2"))
            #expect(try TestCluster.waitForRun(second, store: store) == "failed")
            try TestCluster.waitUntil(10, "the kept webhook to get the second run") {
                control.posts.contains { $0.text.contains(second) }
            }
            try TestCluster.waitUntil(10, "a retry's time to pass") { Date().timeIntervalSince(control.posts.last!.at) > 2 }
            #expect(failing.posts.count <= after + 1, "at most the post in flight at the delete: \(failing.posts.count) vs \(after)")
            let again = try TestCluster.cli(["webhook", "delete", String(doomed)])
            #expect(again.status == 2 && again.stderr == "baton: no webhook \(doomed) (see `baton webhook list`)\n", "\(again.stderr)")
        }

        @Test("a receiver that does not answer is retried, each failure recorded with its error; after its coordinator stops, another delivers")
        func noAnswerThenTakeover() throws {
            let first = TestCluster()
            defer { first.stopAll() }
            let coordinator = try first.start(["coordinator", "--webhook-retry-base", String(Self.retryBase)], name: "coordinator")
            try first.startWorker()
            let port = HTTPProbe.freePort()  // nothing listens yet: connection refused
            let tag = String(UUID().uuidString.prefix(8)).lowercased()
            let hook = try Self.add("http://127.0.0.1:\(port)/hook", ["--events", "run.failed", "--filter", "name=wh-take-\(tag)"])
            defer { _ = try? TestCluster.cli(["webhook", "delete", String(hook)]) }
            let store = try TestCluster.store()
            defer { store.close() }
            let runID = try TestCluster.submit(Self.failing("wh-take-\(tag)"))
            #expect(try TestCluster.waitForRun(runID, store: store) == "failed")
            // A refused connection is tried until the 5 s connect timeout: an attempt takes that long.
            try TestCluster.waitUntil(20, "a failed attempt") { (try Self.deliveries(hook).first?["attempts"]?.intValue ?? 0) >= 1 }

            coordinator.terminate()
            coordinator.waitUntilExit()
            let stopped = Date()
            let receiver = try WebhookReceiver(port: port)
            defer { receiver.stop() }
            let second = TestCluster()
            defer { second.stopAll() }
            try second.start(["coordinator", "--webhook-retry-base", String(Self.retryBase)], name: "coordinator")
            try TestCluster.waitUntil(20, "the delivery after the takeover") { try Self.deliveries(hook).first?["state"] == "delivered" }
            #expect(receiver.posts.count == 1 && receiver.posts[0].headers["baton-event-id"]?.hasPrefix("evt_") == true)
            let history = try #require(try Self.deliveries(hook).first?["history"]?.arrayValue)
            let failures = history.dropLast()
            #expect(!failures.isEmpty && failures.allSatisfy { $0["status"] == .null && $0["error"]?.stringValue?.isEmpty == false }, "\(history)")
            #expect(history.last?["status"] == 200)
            #expect(receiver.posts[0].at > stopped, "posted after the first coordinator was gone")
        }

        @Test("with BATON_WEBHOOK_HOSTS set, a delivery to another host is not posted: it fails at once, saying why")
        func hostsFence() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.start(["coordinator"], name: "coordinator", environment: ["BATON_WEBHOOK_HOSTS": "alerts.example.com"])
            try cluster.startWorker()
            let receiver = try WebhookReceiver()
            defer { receiver.stop() }
            let tag = String(UUID().uuidString.prefix(8)).lowercased()
            let hook = try Self.add(receiver.url, ["--events", "run.failed", "--filter", "name=wh-fence-\(tag)"])
            defer { _ = try? TestCluster.cli(["webhook", "delete", String(hook)]) }
            let store = try TestCluster.store()
            defer { store.close() }
            let runID = try TestCluster.submit(Self.failing("wh-fence-\(tag)"))
            #expect(try TestCluster.waitForRun(runID, store: store) == "failed")
            try TestCluster.waitUntil(10, "the delivery to fail") { try Self.deliveries(hook).first?["state"] == "failed" }
            let delivery = try #require(try Self.deliveries(hook).first)
            #expect(delivery["attempts"] == 1 && delivery["last_error"] == "host '127.0.0.1' is not in BATON_WEBHOOK_HOSTS", "\(delivery)")
            #expect(receiver.posts.isEmpty)
        }

        @Test(
            "bad input is one line, exit 2, and stores nothing",
            arguments: [
                (["ftp://example.com/x", "--events", "run.failed"], "is not http:// or https://"),
                (["http://127.0.0.1:9/x", "--events", "run.done"], "unknown event kind 'run.done'"),
                (["http://127.0.0.1:9/x", "--events", "run.failed", "--filter", "name=a[b]"], "only `*` and `?` are special"),
                (["http://127.0.0.1:9/x", "--events", "run.failed", "--filter", "status=failed"], "only name=GLOB"),
                (["http://127.0.0.1:9/x", "--events", "run.failed", "--format", "xml"], "unknown format 'xml'"),
                (["http://127.0.0.1:9/x", "--events", "run.failed", "--secret", "short"], "16 to 256"),
            ])
        func badInput(_ arguments: [String], _ words: String) throws {
            func count() throws -> Int { try TestCluster.sql().query("select count(*)::int as n from baton.webhooks").int(0, "n") ?? -1 }
            let before = try count()
            let result = try TestCluster.cli(["webhook", "add"] + arguments)
            #expect(result.status == 2 && result.stdout.isEmpty, "\(result.stderr)")
            #expect(
                result.stderr.hasPrefix("baton: ") && result.stderr.contains(words) && result.stderr.split(separator: "\n").count == 1,
                "\(result.stderr)")
            #expect(try count() == before)
        }

        @Test(
            "the API adds, lists, reads and deletes webhooks with an admin token (audited), never shows a stored secret, refuses bad input with 422")
        func api() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let port = try APITests.startServer(cluster)
            let admin = try APITests.token("wh-admin", "admin")
            let reader = try APITests.token("wh-reader", "read")
            func call(_ method: String, _ path: String, token: String = admin, body: JSON? = nil) throws -> HTTPExchange.Reply {
                var headers = ["Authorization": "Bearer \(token)"]
                if body != nil { headers["Content-Type"] = "application/json" }
                return try HTTPExchange.request(method, port: port, "/api/v1" + path, headers: headers, body: body?.serialized() ?? "")
            }
            func count() throws -> Int { try TestCluster.sql().query("select count(*)::int as n from baton.webhooks").int(0, "n") ?? -1 }

            #expect(try call("GET", "/webhooks", token: reader).status == 403, "a read token may not see webhooks")
            #expect(try call("POST", "/webhooks", token: reader, body: ["url": "http://127.0.0.1:9/x", "events": ["run.failed"]]).status == 403)
            let before = try count()
            let refusals: [(JSON, String)] = [
                (["url": "ftp://127.0.0.1/x", "events": ["run.failed"]], "is not http:// or https://"),
                (["url": "http://127.0.0.1:9/x", "events": ["run.done"]], "unknown event kind 'run.done'"),
                (["url": "http://127.0.0.1:9/x", "events": ["all"]], "unknown event kind 'all'"),
                (["url": "http://127.0.0.1:9/x", "events": []], "non-empty array"),
                (["url": "http://127.0.0.1:9/x", "events": ["run.failed", "run.failed"]], "names a kind twice"),
                (["url": "http://127.0.0.1:9/x", "events": ["run.failed"], "name_glob": "a[b"], "only `*` and `?` are special"),
                (["url": "http://127.0.0.1:9/x", "events": ["run.failed"], "format": "xml"], "unknown format 'xml'"),
                (["url": "http://127.0.0.1:9/x", "events": ["run.failed"], "secret": 12], "`secret` must be a string"),
            ]
            for (body, words) in refusals {
                let refused = try call("POST", "/webhooks", body: body)
                #expect(refused.status == 422 && refused.body.contains(words), "\(body): \(refused.status) \(refused.body)")
            }
            #expect(try count() == before, "nothing stored")

            let made = try call(
                "POST", "/webhooks",
                body: [
                    "url": "https://alerts.example.com/baton", "events": ["run.failed", "node.retrying"], "name_glob": "nightly-*", "format": "slack",
                ])
            #expect(made.status == 201, "\(made.body)")
            let created = try made.json()
            let id = try #require(created["id"]?.intValue)
            let secret = try #require(created["secret"]?.stringValue)
            #expect(secret.hasPrefix("whsec_") && created["events"] == ["run.failed", "node.retrying"] && created["name_glob"] == "nightly-*")
            #expect(created["format"] == "slack" && created["created_by"] == "wh-admin" && created["disabled_at"] == .null)

            let listed = try call("GET", "/webhooks")
            #expect(listed.status == 200 && !listed.body.contains(secret) && !listed.body.contains("\"secret\""), "\(listed.body)")
            let listedJSON = try listed.json()
            #expect(listedJSON["webhooks"]?.arrayValue?.contains { $0["id"]?.intValue == id } == true)
            let page = try call("GET", "/webhooks?limit=1")
            let pageJSON = try page.json()
            #expect(page.status == 200 && pageJSON["webhooks"]?.arrayValue?.count == 1)
            if let cursor = pageJSON["next_cursor"]?.stringValue { #expect(try call("GET", "/webhooks?limit=1&cursor=\(cursor)").status == 200) }
            #expect(try call("GET", "/webhooks?cursor=zzz").status == 400)
            let one = try call("GET", "/webhooks/\(id)")
            let oneJSON = try one.json()
            #expect(one.status == 200 && oneJSON["url"] == "https://alerts.example.com/baton" && !one.body.contains(secret))
            #expect(try call("GET", "/webhooks/abc").status == 400)
            #expect(try call("GET", "/webhooks/999999999").status == 404)
            let deliveries = try call("GET", "/webhooks/\(id)/deliveries?state=pending")
            let deliveriesJSON = try deliveries.json()
            #expect(deliveries.status == 200 && deliveriesJSON["deliveries"] == [] && deliveriesJSON["next_cursor"] == .null)
            #expect(try call("GET", "/webhooks/\(id)/deliveries?state=sent").status == 400)
            #expect(try call("GET", "/webhooks/999999999/deliveries").status == 404)

            #expect(try call("DELETE", "/webhooks/\(id)", token: reader).status == 403)
            #expect(try call("DELETE", "/webhooks/\(id)").status == 204)
            #expect(try call("DELETE", "/webhooks/\(id)").status == 404)
            #expect(try call("GET", "/webhooks/\(id)").status == 404)
            let audit = try TestCluster.sql().query(
                "select action from baton.audit where token_name = 'wh-admin' and target = $1 order by id", [String(id)])
            #expect((0..<audit.rowCount).map { audit[row: $0, column: "action"] ?? "" } == ["webhook.create", "webhook.delete"])
        }
    }
}
