import Baton
import Foundation
import Testing

extension Integration {
    /// The CLI over `--server`/`BATON_SERVER` against a real `baton server`: every run command prints
    /// what the direct path prints for the same run, with no usable database URL in its environment.
    @Suite("CLI remote mode", .serialized)
    @MainActor  // blocking waits here must not starve the cooperative pool the async unit tests need
    struct CLIRemoteTests {
        /// `baton ARGS` with BATON_SERVER and BATON_TOKEN set and no database: BATON_DATABASE_URL unset
        /// (`unset`) or pointing at a port nothing listens on, so any database access would fail.
        static func remote(
            _ arguments: [String], port: Int, token: String?, unset: Bool = false
        ) throws -> (status: Int32, stdout: String, stderr: String) {
            var assignments = ["BATON_SERVER=http://127.0.0.1:\(port)", "BATON_AMQP_URL=amqp://nobody:x@127.0.0.1:1/none"]
            if let token { assignments.append("BATON_TOKEN=\(token)") }
            if !unset { assignments.append("BATON_DATABASE_URL=postgresql://nobody@127.0.0.1:1/none") }
            return try ChildProcess.run(
                "/usr/bin/env", ["-u", "BATON_DATABASE_URL", "-u", "BATON_TOKEN"] + assignments + [TestCluster.batonPath] + arguments)
        }

        static let graph = """
            name: remote-cli
            nodes:
              a: {procedure: baton.echo, input: {text: hi}}
              b: {procedure: demo.multiply, input: {values: [2, 3]}, after: [a]}
            """

        @Test("submit --wait, show, events, timeline, runs, procedures and validate print what the direct path prints, with no database URL")
        func sameOutputAsDirect() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let port = try APITests.startServer(cluster)
            let token = try APITests.token("cli-remote", "read,submit")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("remote-cli-\(getpid()).yaml").path
            try Self.graph.write(toFile: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: file) }

            // The database URL unset altogether: submit and wait, with the run's outputs.
            let submitted = try Self.remote(["submit", file, "--wait", "--json"], port: port, token: token, unset: true)
            try #require(submitted.status == 0, "\(submitted.stderr)")
            let answer = try JSONParser.parse(submitted.stdout)
            let id = try #require(answer["run_id"]?.stringValue)
            #expect(answer["status"] == "succeeded" && answer["outputs"] == ["a": ["text": "hi"], "b": 6], "\(submitted.stdout)")

            for arguments in [
                ["show", id], ["show", id, "--json"], ["events", id], ["events", id, "--json"], ["show", id, "--timeline", "--width", "80"],
                ["show", id, "--timeline", "--json"], ["watch", id], ["runs", "--limit", "3"], ["runs", "--json", "--status", "succeeded"],
                ["procedures"], ["procedures", "--json"], ["validate", file], ["validate", file, "--json"],
            ] {
                let direct = try TestCluster.cli(arguments)
                let remote = try Self.remote(arguments, port: port, token: token)
                #expect(direct.status == 0, "\(arguments): \(direct.stderr)")
                #expect(remote.status == direct.status && remote.stdout == direct.stdout && remote.stderr == direct.stderr, "\(arguments): \(remote)")
            }
            // A bad graph: the same lines, with the file's name.
            try "nodes:\n  a: {procedure: baton.echo, after: [zz]}\n".write(toFile: file, atomically: true, encoding: .utf8)
            for arguments in [["submit", file], ["validate", file], ["submit", file, "--json"]] {
                let direct = try TestCluster.cli(arguments)
                let remote = try Self.remote(arguments, port: port, token: token)
                #expect(
                    direct.status == 2 && remote.status == 2 && remote.stdout == direct.stdout && remote.stderr == direct.stderr,
                    "\(arguments): \(remote)")
            }
        }

        @Test("signal, cancel and retry through the server; a token problem or a database-only command is one line")
        func operateAndRefusals() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let port = try APITests.startServer(cluster)
            let token = try APITests.token("cli-remote-operate", "read,submit,operate")
            let reader = try APITests.token("cli-remote-reader", "read")
            let store = try TestCluster.store()
            defer { store.close() }

            let waiting = try TestCluster.submit([
                "name": "remote-signal", "nodes": ["ok": ["signal": "approve"], "then": ["procedure": "baton.echo", "after": ["ok"]]],
            ])
            try TestCluster.waitUntil(30, "the signal node to wait") { try TestCluster.nodes(store, waiting)["ok"]?.status == "waiting" }
            let signalled = try Self.remote(["signal", waiting, "ok", "--data", #"{"yes": true}"#, "--json"], port: port, token: token)
            #expect(signalled.status == 0 && (try? JSONParser.parse(signalled.stdout))?["applied"] == true, "\(signalled)")
            let again = try Self.remote(["signal", waiting, "ok"], port: port, token: token)
            #expect(again.status == 2 && again.stderr.hasPrefix("baton: cannot signal: "), "\(again)")

            let sleeper = try TestCluster.submit(["name": "remote-sleep", "nodes": ["nap": ["procedure": "baton.sleep", "input": ["seconds": 30]]]])
            let denied = try Self.remote(["cancel", sleeper], port: port, token: reader)
            #expect(denied.status == 1 && denied.stderr.contains("BATON_TOKEN") && denied.stderr.contains("operate"), "\(denied)")
            let cancelled = try Self.remote(["cancel", sleeper, "--reason", "remote test"], port: port, token: token)
            #expect(cancelled.status == 0 && cancelled.stdout == "run \(sleeper) cancelled\n", "\(cancelled)")
            let twice = try Self.remote(["cancel", sleeper], port: port, token: token)
            #expect(twice.status == 1 && twice.stderr == "baton: run \(sleeper) already ended (cancelled); nothing to cancel\n", "\(twice)")
            let noNode = try Self.remote(["retry", sleeper, "--from", "zz"], port: port, token: token)
            #expect(noNode.status == 2 && noNode.stderr == "baton: run \(sleeper) has no node 'zz'\n", "\(noNode)")
            let retried = try Self.remote(["retry", sleeper, "--json"], port: port, token: token)
            #expect(retried.status == 0 && (try? JSONParser.parse(retried.stdout))?["applied"] == true, "\(retried)")
            #expect(try Self.remote(["cancel", sleeper], port: port, token: token).status == 0)

            let workers = try Self.remote(["workers", "--wait-for", "baton.echo", "--timeout", "20", "--json"], port: port, token: token)
            #expect(workers.status == 0 && (try? JSONParser.parse(workers.stdout))?.arrayValue?.isEmpty == false, "\(workers)")
            let coordinators = try Self.remote(["coordinators", "--json"], port: port, token: token)
            #expect(coordinators.status == 0 && (try? JSONParser.parse(coordinators.stdout))?.arrayValue?.count == 1, "\(coordinators)")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("remote-sleep-\(getpid()).json").path
            try #"{"name": "remote-slow", "nodes": {"nap": {"procedure": "baton.sleep", "input": {"seconds": 30}}}}"#.write(
                toFile: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: file) }
            let timedOut = try Self.remote(["submit", file, "--wait", "--timeout", "1"], port: port, token: token)
            #expect(timedOut.status == 3 && timedOut.stderr.contains("still running after 1.0 s"), "\(timedOut)")
            let slow = try #require(timedOut.stderr.split(separator: " ").dropFirst().first.map(String.init))  // "run ID submitted (1 node)"
            #expect(try Self.remote(["cancel", slow], port: port, token: token).status == 0)  // the worker stops at once, not after its grace

            let unknown = try Self.remote(["runs"], port: port, token: "baton_not-a-token")
            #expect(unknown.status == 1 && unknown.stderr.hasPrefix("baton: the server refused BATON_TOKEN: "), "\(unknown)")
            let noToken = try Self.remote(["runs"], port: port, token: nil)
            #expect(
                noToken.status == 2
                    && noToken.stderr == "baton: BATON_SERVER is set but BATON_TOKEN is not: set BATON_TOKEN to a token from `baton token create`\n",
                "\(noToken)")
            let migrate = try TestCluster.cli(["migrate", "--server", "http://127.0.0.1:\(port)"])
            #expect(migrate.status == 2 && migrate.stderr.split(separator: "\n").count == 1 && migrate.stderr.contains("database only"), "\(migrate)")
            let prefix = try Self.remote(["show", String(sleeper.prefix(8))], port: port, token: token)
            #expect(prefix.status == 2 && prefix.stderr.contains("whole run id"), "\(prefix)")
        }

        @Test("schedule list, show, pause, resume and trigger through the server print what the direct path prints; add stays direct")
        func schedules() throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            // No coordinator: nothing fires or moves the schedules between the two reads compared.
            let port = try APITests.startServer(cluster)
            let token = try APITests.token("cli-remote-schedules", "read,operate")
            let reader = try APITests.token("cli-remote-schedules-reader", "read")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("remote-schedule-\(getpid()).yaml").path
            try Self.graph.write(toFile: file, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: file) }
            func deleteAll() throws { for name in ["remote-nightly", "remote-tick"] { _ = try TestCluster.cli(["schedule", "delete", name]) } }
            try deleteAll()
            defer { try? deleteAll() }  // other suites expect no schedule left
            let nightly = try TestCluster.cli(
                [
                    "schedule", "add", "remote-nightly", file, "--cron", "30 2 * * *", "--timezone", "Europe/Berlin", "--input",
                    #"{"z": [1, "b"], "a": null}"#,
                ])
            let tick = try TestCluster.cli(["schedule", "add", "remote-tick", file, "--every", "1.5m", "--overlap", "queue", "--catch-up", "all"])
            try #require(nightly.status == 0 && tick.status == 0, "\(nightly.stderr)\(tick.stderr)")

            func same(_ arguments: [String], status: Int32 = 0) throws {
                let direct = try TestCluster.cli(arguments)
                let remote = try Self.remote(arguments, port: port, token: token)
                #expect(direct.status == status, "\(arguments): \(direct.stderr)")
                #expect(remote.status == direct.status && remote.stdout == direct.stdout && remote.stderr == direct.stderr, "\(arguments): \(remote)")
            }
            // Triggered by hand through the server: a run stored under the schedule's trigger key.
            let triggered = try Self.remote(["schedule", "trigger", "remote-tick", "--json"], port: port, token: token)
            try #require(triggered.status == 0, "\(triggered)")
            let fired = try JSONParser.parse(triggered.stdout)
            let run = try #require(fired["run_id"]?.stringValue)
            #expect(fired["name"] == "remote-tick" && fired["key"]?.stringValue?.hasPrefix("schedule:remote-tick:trigger:") == true, "\(fired)")
            let stored = try TestCluster.sql().query(
                "select count(*)::int as n from baton.idempotency_keys k join baton.runs r on r.id = k.run_id where k.key = $1 and r.id = $2::uuid",
                [fired["key"]?.stringValue ?? "", run]
            ).int(0, "n")
            #expect(stored == 1, "the triggered run \(run) under its key")
            let plain = try Self.remote(["schedule", "trigger", "remote-nightly"], port: port, token: token)
            #expect(plain.status == 0 && plain.stdout.count == 37 && plain.stderr.isEmpty, "\(plain)")

            for arguments in [
                ["schedule", "list"], ["schedule", "list", "--json"], ["schedule", "show", "remote-tick"],
                ["schedule", "show", "remote-nightly", "--json"],
                ["schedule", "show", "remote-tick", "--limit", "1", "--json"],
            ] {
                try same(arguments)
            }
            try same(["schedule", "show", "remote-none"], status: 2)
            // Pausing is idempotent: the server's answer, then the database's, are the same lines.
            for arguments in [
                ["schedule", "pause", "remote-tick"], ["schedule", "pause", "remote-tick", "--json"], ["schedule", "list"],
                ["schedule", "show", "remote-tick"], ["schedule", "resume", "remote-tick"], ["schedule", "resume", "remote-tick", "--json"],
                ["schedule", "list", "--json"],
            ] {
                try same(arguments)
            }
            try same(["schedule", "pause", "remote-none"], status: 2)
            try same(["schedule", "trigger", "remote-none"], status: 2)

            let denied = try Self.remote(["schedule", "pause", "remote-tick"], port: port, token: reader)
            #expect(denied.status == 1 && denied.stderr.contains("BATON_TOKEN") && denied.stderr.contains("operate"), "\(denied)")
            let add = try Self.remote(
                ["schedule", "add", "remote-more", file, "--every", "1h", "--server", "http://127.0.0.1:\(port)"], port: port, token: token)
            #expect(add.status == 2 && add.stderr.contains("`baton schedule add` works on the database only"), "\(add)")
        }
    }
}
