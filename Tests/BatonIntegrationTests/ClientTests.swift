import Baton
import BatonClient
import Foundation
import Testing

extension Integration {
    /// `BatonClient` (the Swift client, no libpq) against a real `baton server`: submit, wait for the
    /// result, follow events, signal, cancel, and the server's refusals as typed errors.
    @Suite("Swift client", .serialized)
    struct ClientTests {
        @Test("a Swift app submits, waits for the outputs, follows events, signals and cancels with a URL and a token")
        func submitWaitFollowSignal() async throws {
            let cluster = TestCluster()
            defer { cluster.stopAll() }
            try cluster.startCoordinator()
            try cluster.startWorker()
            let port = try await MainActor.run { try APITests.startServer(cluster) }
            let token = try await MainActor.run { try APITests.token("client-app", "submit,read,operate") }
            let baton = BatonClient(server: URL(string: "http://127.0.0.1:\(port)")!, token: token)

            let run = try await baton.submit(graph: APITests.echo, idempotencyKey: "client-k1")
            #expect(run.created && run.id.count == 36)
            let result = try await baton.result(of: run.id, timeout: .seconds(60))
            #expect(result.status == .succeeded && result.outputs["say"] == ["text": "hi"], "\(result)")
            let again = try await baton.submit(graph: APITests.echo, idempotencyKey: "client-k1")
            #expect(again.id == run.id && !again.created && again.status == .succeeded)
            var kinds: [String] = []
            for try await event in baton.events(of: run.id) { kinds.append(event.kind) }
            #expect(kinds.first == "queued" || kinds.contains("started"), "\(kinds)")
            #expect(kinds.last == "run_succeeded", "the sequence ends with the run: \(kinds)")

            let approval: JSON = [
                "name": "client-approval", "nodes": ["ok": ["signal": "approve"], "then": ["procedure": "baton.echo", "after": ["ok"]]],
            ]
            let waiting = try await baton.submit(graph: approval)
            try await waitUntilAwaiting(baton, waiting.id, node: "ok")
            #expect(try await baton.signal(waiting.id, node: "ok", value: ["yes": true], wait: 20))
            let signalled = try await baton.result(of: waiting.id, timeout: .seconds(60))
            #expect(signalled.status == .succeeded, "\(signalled)")

            let slow: JSON = ["name": "client-slow", "nodes": ["slow": ["procedure": "demo.steps", "input": ["steps": 100, "seconds": 0.2]]]]
            let long = try await baton.submit(graph: slow)
            #expect(try await baton.cancel(long.id, reason: "from a test", wait: 20))
            let cancelled = try await baton.result(of: long.id, timeout: .seconds(60))
            #expect(cancelled.status == .cancelled, "\(cancelled)")

            do {
                _ = try await baton.submit(graph: ["nodes": ["a": ["procedure": "baton.echo", "after": ["zz"]]]])
                Issue.record("an invalid graph was taken")
            } catch let error as BatonClientError {
                #expect(error.status == 422 && error.code == "invalid" && error.message.hasPrefix("graph: invalid graph"), "\(error)")
            }
            do {
                _ = try await BatonClient(server: URL(string: "http://127.0.0.1:\(port)")!, token: "baton_nope").run(run.id)
                Issue.record("an unknown token was let in")
            } catch let error as BatonClientError {
                #expect(error.status == 401 && error.code == "unauthorized", "\(error)")
            }
        }

        /// Waits (asking the server, with a deadline) until `node` of run `id` awaits its signal.
        func waitUntilAwaiting(_ baton: BatonClient, _ id: String, node: String) async throws {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                let answer = try await baton.send("GET", "/runs/\(id)/nodes/\(node)")
                if answer["node"]?["status"] == "waiting" { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            Issue.record("node \(node) never awaited its signal")
        }
    }
}
