import Baton
import BatonStore
import Foundation
import Testing

extension Integration {
    /// Schedules fired by real coordinators: due times become runs keyed `schedule:NAME:TIME`, exactly
    /// once across a coordinator kill; the CLI refuses bad input in one line and stores nothing.
    @Suite("schedules", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct ScheduleTests {
        static let echo: JSON = ["nodes": ["say": ["procedure": "baton.echo", "input": ["text": "tick"]]]]

        /// Due times fired by schedule `name` (from stored runs' idempotency keys), and how many runs each has.
        static func fired(_ name: String) throws -> [(due: String, at: Double, runs: Int, late: Double)] {
            let r = try TestCluster.sql().query(
                """
                select substr(r.idempotency_key, length($1) + 1) as due, count(*)::int as n,
                       extract(epoch from substr(r.idempotency_key, length($1) + 1)::timestamptz)::float8 as at,
                       max(extract(epoch from r.submitted_at - substr(r.idempotency_key, length($1) + 1)::timestamptz))::float8 as late
                from baton.runs r where starts_with(r.idempotency_key, $1) group by 1 order by at
                """, ["schedule:\(name):"])
            return (0..<r.rowCount).map {
                (r[row: $0, column: "due"]!, Double(r[row: $0, column: "at"]!)!, r.int($0, "n")!, Double(r[row: $0, column: "late"]!)!)
            }
        }

        static func schedules() throws -> Int {
            try TestCluster.sql().query("select count(*)::int as n from baton.schedules").int(0, "n") ?? -1
        }

        @Test("--every 2s fires every due time exactly once across a coordinator SIGKILL (catch-up all)")
        func firesAcrossACoordinatorKill() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            let coordinator = try cluster.startCoordinator()
            try cluster.startWorker()
            let file = try GraphFixtures.write(Self.echo)
            let added = try TestCluster.cli(
                ["schedule", "add", "tick", file, "--every", "2s", "--catch-up", "all", "--overlap", "allow", "--json"])
            #expect(added.status == 0, "\(added.stderr)")
            try TestCluster.waitUntil(30, "three firings") { try Self.fired("tick").count >= 3 }
            kill(coordinator.processIdentifier, SIGKILL)
            let store = try TestCluster.store()
            defer { store.close() }
            let killedAt = try store.databaseNow()
            // Down for at least two due times, waited on the database's clock.
            try TestCluster.waitUntil(30, "5 s without a coordinator") { try store.databaseNow() >= killedAt + 5 }
            let missedFrom = try Self.fired("tick").count
            try cluster.start(["coordinator"], name: "second")
            try TestCluster.waitUntil(60, "firings after the takeover") { try Self.fired("tick").count >= missedFrom + 6 }
            _ = try TestCluster.cli(["schedule", "pause", "tick"])
            let fired = try Self.fired("tick")
            #expect(fired.allSatisfy { $0.runs == 1 }, "a due time fired twice: \(fired.filter { $0.runs != 1 })")
            // No gap: consecutive due times 2 s apart, from the first to the last.
            let times = fired.map(\.at)
            let gaps = zip(times, times.dropFirst()).filter { abs($1 - $0 - 2) > 0.001 }
            #expect(gaps.isEmpty, "due times not 2 s apart: \(gaps) in \(fired.map(\.due))")
            // On time while a coordinator ran: the first firings within a second or two of their due time.
            #expect(fired.prefix(3).allSatisfy { $0.late < 2 }, "\(fired.prefix(3).map(\.late))")
            // Caught up: some firings came late, after the kill, and they were all made.
            #expect(fired.contains { $0.late > 2 }, "no due time fell in the downtime: \(fired.map(\.late))")
            let show = try TestCluster.cli(["schedule", "show", "tick", "--json"])
            let json = try JSONParser.parse(show.stdout)
            #expect(json["paused"] == true && (json["runs"]?.arrayValue?.count ?? 0) >= 9, "\(show.stdout)")
            #expect(try TestCluster.cli(["schedule", "delete", "tick"]).status == 0)
        }

        @Test("add, list, show, trigger, pause, resume and delete, with --json")
        func commands() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let file = try GraphFixtures.write(Self.echo)
            let added = try TestCluster.cli(
                ["schedule", "add", "nightly", file, "--cron", "30 2 * * *", "--timezone", "Europe/Berlin", "--input", "{\"x\": 1}"])
            #expect(added.status == 0 && added.stdout.contains("schedule nightly added: cron \"30 2 * * *\" Europe/Berlin"), "\(added)")
            let listed = try JSONParser.parse(try TestCluster.cli(["schedule", "list", "--json"]).stdout)
            let row = try #require(listed.arrayValue?.first { $0["name"] == "nightly" })
            #expect(row["timezone"] == "Europe/Berlin" && row["overlap"] == "skip" && row["catch_up"] == "last" && row["input"]?["x"] == 1)
            // The coordinator computes its next time (02:30 Berlin is 00:30 or 01:30 UTC).
            try TestCluster.waitUntil(20, "the next firing time") {
                let json = try JSONParser.parse(try TestCluster.cli(["schedule", "show", "nightly", "--json"]).stdout)
                return json["next_fire_at"]?.stringValue?.contains("T0") == true
            }
            let triggered = try TestCluster.cli(["schedule", "trigger", "nightly", "--json"])
            #expect(triggered.status == 0, "\(triggered.stderr)")
            let runID = try #require(try JSONParser.parse(triggered.stdout)["run_id"]?.stringValue)
            let store = try TestCluster.store()
            defer { store.close() }
            #expect(try TestCluster.waitForRun(runID, store: store) == "succeeded")
            let show = try JSONParser.parse(try TestCluster.cli(["schedule", "show", "nightly", "--json"]).stdout)
            #expect(show["runs"]?.arrayValue?.first?["run_id"]?.stringValue == runID && show["last_run_id"]?.stringValue == runID)
            #expect(show["runs"]?.arrayValue?.first?["key"]?.stringValue?.hasPrefix("schedule:nightly:trigger:") == true)
            // The dashboard lists it, with a link to the run.
            let port = try DashboardTests.startDashboard(cluster)
            let page = try HTTPExchange.request(port: port, "/schedules")
            #expect(page.status == 200 && page.body.contains("data-schedule=\"nightly\"") && page.body.contains("href=\"/runs/\(runID)\""))
            #expect(try TestCluster.cli(["schedule", "pause", "nightly"]).stdout == "schedule nightly paused\n")
            #expect(try JSONParser.parse(try TestCluster.cli(["schedule", "show", "nightly", "--json"]).stdout)["paused"] == true)
            #expect(try TestCluster.cli(["schedule", "resume", "nightly", "--json"]).status == 0)
            let text = try TestCluster.cli(["schedule", "list"])
            #expect(text.stdout.contains("nightly") && text.stdout.contains("active"), "\(text.stdout)")
            #expect(try TestCluster.cli(["schedule", "delete", "nightly"]).status == 0)
            #expect(try JSONParser.parse(try TestCluster.cli(["schedule", "list", "--json"]).stdout) == [])
        }

        @Test("bad input: one line naming what is wrong, exit 2, nothing stored")
        func badInput() throws {
            _ = TestCluster.prepared
            let file = try GraphFixtures.write(Self.echo)
            let invalid = try GraphFixtures.write(["nodes": ["a": ["procedure": "no.such-procedure"]]])
            let existing = try TestCluster.cli(["schedule", "add", "taken", file, "--every", "1h"])
            #expect(existing.status == 0, "\(existing.stderr)")
            defer { _ = try? TestCluster.cli(["schedule", "delete", "taken"]) }
            let before = try Self.schedules()
            let cases: [([String], String)] = [
                (["add", "s", file, "--cron", "61 * * * *"], "--cron: cron minute field '61': 61 is out of range (0-59)"),
                (["add", "s", file, "--cron", "* * * *"], "--cron: cron expression '* * * *': has 4 fields"),
                (["add", "s", file, "--cron", "0 * * * MON-FUN"], "cron day of week field 'MON-FUN'"),
                (["add", "s", file, "--cron", "0 2 * * *", "--timezone", "Mars/Olympus"], "--timezone 'Mars/Olympus' is not an IANA time zone"),
                (["add", "s", file, "--cron", "0 2 * * *", "--every", "1m"], "give --cron or --every, not both"),
                (["add", "s", file], "give --cron \"EXPR\" or --every DURATION"),
                (["add", "s", file, "--every", "soon"], "--every: 'soon' is not a duration"),
                (["add", "s", file, "--every", "500ms"], "--every '500ms' is shorter than the least period, 1s"),
                (["add", "s", file, "--every", "1m", "--timezone", "UTC"], "--timezone only makes sense with --cron"),
                (["add", "s", file, "--every", "1m", "--overlap", "wait"], "--overlap must be skip, queue or allow, got 'wait'"),
                (["add", "s", file, "--every", "1m", "--catch-up", "some"], "--catch-up must be none, last or all, got 'some'"),
                (["add", "Bad:Name", file, "--every", "1m"], "schedule name 'Bad:Name' must be"),
                (["add", "taken", file, "--every", "1m"], "schedule 'taken' already exists"),
                (["add", "s", invalid, "--every", "1m"], "invalid graph (1 problem)"),
                (["add", "s", "/no/such/graph.json", "--every", "1m"], "/no/such/graph.json: no such file"),
                (["add", "s", file, "--every", "1m", "--input", "[1]"], "--input must be a JSON object"),
                (["show", "nope"], "no schedule named 'nope'"),
                (["show", "taken", "--limit", "0"], "--limit must be from 1 to 1000"),
                (["pause", "nope"], "no schedule named 'nope'"),
                (["resume", "nope"], "no schedule named 'nope'"),
                (["delete", "nope"], "no schedule named 'nope'"),
                (["trigger", "nope"], "no schedule named 'nope'"),
            ]
            for (arguments, message) in cases {
                let result = try TestCluster.cli(["schedule"] + arguments)
                #expect(result.status == 2, "\(arguments): \(result)")
                #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
                if !message.contains("invalid graph") {
                    #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
                }
            }
            #expect(try Self.schedules() == before)
        }
    }
}
