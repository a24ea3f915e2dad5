import Baton
import BatonPostgres
import BatonSimulation
import BatonStore
import Foundation
import Testing

/// The same operations against the real `Store` (PostgreSQL at BATON_DATABASE_URL) and against
/// `MemoryStore` give the same results: `MemoryStore` is a faithful twin for the simulator.
@Suite("MemoryStore keeps the Store contract", .serialized)
struct StoreContractTests {
    static func graph(_ text: String) throws -> Graph { try GraphDecoder().decode(try JSONParser.parse(text)) }

    /// Runs `graph` with `outcome` on both stores and expects the same snapshots after every apply.
    func expectSameRun(
        _ text: String, retries: Int = 0, outcome: @escaping (TaskDispatch) -> NodeResult.Outcome
    ) throws -> [RunSnapshot] {
        let graph = try Self.graph(text)
        let postgres = try ContractBackend.postgres()
        let memory = try ContractBackend.memory()
        let real = try ContractDriver(backend: postgres, outcome: outcome, retries: retries).run(graph)
        defer { postgres.finish([real.id]) }
        let twin = try ContractDriver(backend: memory, outcome: outcome, retries: retries).run(graph)
        defer { memory.finish([twin.id]) }
        #expect(twin.snapshots.count == real.snapshots.count)
        for (i, (a, b)) in zip(real.snapshots, twin.snapshots).enumerated() where a != b {
            Issue.record("snapshot \(i) differs:\n postgres: \(a)\n memory:   \(b)")
            break
        }
        #expect(twin.events == real.events)
        for (i, (a, b)) in zip(real.events, twin.events).enumerated() where a != b {
            Issue.record("event \(i) differs:\n postgres: \(a)\n memory:   \(b)")
            break
        }
        return twin.snapshots
    }

    static func echo(_ task: TaskDispatch) -> NodeResult.Outcome { .succeeded(["key": .string(task.key), "input": task.input]) }

    /// Runs `body` on PostgreSQL, then on the twin, each with a run of `graph` submitted there (deleted after).
    static func onBoth(_ graph: Graph, _ body: (ContractBackend, String) throws -> Void) throws {
        for backend in [try ContractBackend.postgres(), try ContractBackend.memory()] {
            let id = try backend.submit(graph)
            defer { backend.finish([id]) }
            try body(backend, id)
        }
    }

    @Test func aChainRunsTheSame() throws {
        let snapshots = try expectSameRun(
            #"{"nodes": {"a": {"procedure": "p", "input": {"n": 1}}, "b": {"procedure": "p", "input": {"$from": "a"}}, "c": {"procedure": "p", "after": ["b"]}}}"#,
            outcome: Self.echo)
        #expect(snapshots.last?.status == .succeeded)
        #expect(snapshots.last?.nodes["c"]?.attempt == 1)
    }

    @Test func aMapExpandsTheSameChildren() throws {
        let snapshots = try expectSameRun(
            #"{"nodes": {"list": {"procedure": "p"}, "m": {"map": {"over": {"$from": "list"}, "procedure": "q", "input": {"x": {"$item": ""}}}}}}"#,
            outcome: { task in task.key == "list" ? .succeeded([1, 2, 3]) : Self.echo(task) })
        #expect(snapshots.last?.status == .succeeded)
        #expect(snapshots.last?.order.filter { $0.hasPrefix("m/") }.count == 3)
    }

    @Test func aGroupExpandsTheSameChildren() throws {
        let snapshots = try expectSameRun(
            #"{"nodes": {"g": {"group": {"nodes": {"c": {"procedure": "p"}, "d": {"procedure": "p", "input": {"$from": "c"}}}}}}}"#,
            outcome: Self.echo)
        #expect(snapshots.last?.status == .succeeded)
        #expect(snapshots.last?.order.contains("g/d") == true)
    }

    @Test func aRetryWaitsUntilTheSameDueTime() throws {
        let snapshots = try expectSameRun(
            #"{"nodes": {"flaky": {"procedure": "p", "retry": {"attempts": 3, "wait": {"constant": "5s"}}}}}"#,
            outcome: { task in task.attempt < 3 ? .failed(message: "flaky \(task.attempt)", permanent: false) : Self.echo(task) })
        #expect(snapshots.contains { $0.nodes["flaky"]?.status == .waiting && $0.nodes["flaky"]?.dueAt != nil })
        #expect(snapshots.last?.status == .succeeded)
        #expect(snapshots.last?.nodes["flaky"]?.attempt == 3)
    }

    @Test func aFailureEndsTheRunTheSame() throws {
        let snapshots = try expectSameRun(
            #"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p", "after": ["a"]}}}"#,
            outcome: { _ in .failed(message: "broken \"quoted\"", permanent: true) })
        #expect(snapshots.last?.status == .failed)
        #expect(snapshots.last?.nodes["b"]?.status == .cancelled)
    }

    /// A failed map retried: its children are pruned and expanded anew, the failed nodes reset.
    @Test func aRetriedMapStartsItsChildrenAnew() throws {
        let snapshots = try expectSameRun(
            #"{"nodes": {"list": {"procedure": "p"}, "m": {"map": {"over": {"$from": "list"}, "procedure": "q"}}, "z": {"procedure": "p", "after": ["m"]}}}"#,
            retries: 1,
            outcome: { task in
                if task.key == "list" { return .succeeded(["x", "y"]) }
                return task.key == "m/1" && task.attempt == 1 ? .failed(message: "once", permanent: true) : Self.echo(task)
            })
        #expect(snapshots.contains { $0.status == .failed })
        #expect(snapshots.last?.status == .succeeded)
        #expect(snapshots.last?.nodes["m/1"]?.attempt ?? 0 > 1)
    }

    /// A failure's error type is stored beside its error (in the row and the event) and cleared with
    /// it when the node is queued again, the same on both.
    @Test func anErrorTypeIsStoredAndClearedTheSame() throws {
        let graph = try Self.graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}}}"#)
        var results: [[String]] = []
        try Self.onBoth(graph) { backend, id in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            func apply(_ commands: [SchedulerCommand]) throws {
                _ = try backend.store.apply([(id, commands)], heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [], now: now)
            }
            var failed = NodeChange(key: "a", status: .failed, attempt: 1, error: "p threw Boom: x", worker: "w1")
            failed.errorType = "Boom"
            var waiting = NodeChange(key: "b", status: .waiting, attempt: 1, error: "p threw Flaky: y", event: .retrying, dueAt: now)
            waiting.errorType = "Flaky"
            try apply([
                .runStatus(.running, error: nil), .node(NodeChange(key: "a", status: .queued, attempt: 1, input: [:])),
                .node(NodeChange(key: "b", status: .queued, attempt: 1, input: [:])),
            ])
            try apply([.node(failed), .node(waiting)])
            let stored = try backend.nodeErrors(id)
            try apply([.node(NodeChange(key: "b", status: .queued, attempt: 2, input: [:]))])
            results.append(stored + (try backend.nodeErrors(id)) + (try backend.events(id)).filter { $0.contains("error_type") })
        }
        #expect(results[0] == results[1])
        #expect(
            Array(results[1].prefix(4)) == [
                "a failed p threw Boom: x Boom", "b waiting p threw Flaky: y Flaky", "a failed p threw Boom: x Boom", "b queued - -",
            ])
        #expect(results[1].count == 6, "the failed and retrying events carry error_type: \(results[1])")
    }

    /// An attempt's token is written with the change that queues it, kept when the same batch starts
    /// and ends the attempt, replaced by the next attempt's, and loaded back, the same on both stores.
    @Test func attemptTokensAreStoredWithTheirAttempt() throws {
        let graph = try Self.graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}}}"#)
        var results: [[String]] = []
        try Self.onBoth(graph) { backend, id in
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            func apply(_ commands: [SchedulerCommand]) throws {
                _ = try backend.store.apply([(id, commands)], heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [], now: now)
            }
            func tokens() throws -> [String] {
                let run = try #require(try backend.store.loadRun(id))
                return ["a", "b"].map { "\($0) #\(run.nodes[$0]!.attempt) \(run.nodes[$0]!.attemptToken?.text ?? "none")" }
            }
            var queuedA = NodeChange(key: "a", status: .queued, attempt: 1, input: [:])
            queuedA.attemptToken = AttemptToken(high: 1, low: 1)
            var queuedB = NodeChange(key: "b", status: .queued, attempt: 1, input: [:])
            queuedB.attemptToken = AttemptToken(high: 2, low: 2)
            // a is queued, started and fails in one batch; b is only queued.
            try apply([
                .runStatus(.running, error: nil), .node(queuedA), .node(NodeChange(key: "a", status: .running, attempt: 1, worker: "w1")),
                .node(NodeChange(key: "a", status: .waiting, attempt: 1, error: "x", event: .retrying, dueAt: now)), .node(queuedB),
            ])
            var result = try tokens()
            var again = NodeChange(key: "a", status: .queued, attempt: 2, input: [:])
            again.attemptToken = AttemptToken(high: 3, low: 3)
            try apply([.node(again), .node(NodeChange(key: "b", status: .running, attempt: 1, worker: "w1"))])
            result += try tokens()
            // Queued without a token (the in-process engine, a coordinator from before tokens): none is kept.
            try apply([.node(NodeChange(key: "a", status: .queued, attempt: 3, input: [:]))])
            result += try tokens()
            results.append(result)
        }
        #expect(results[0] == results[1])
        #expect(
            results[0] == [
                "a #1 00000000000000010000000000000001", "b #1 00000000000000020000000000000002",
                "a #2 00000000000000030000000000000003", "b #1 00000000000000020000000000000002",
                "a #3 none", "b #1 00000000000000020000000000000002",
            ])
    }

    /// A run loads the input of its queued nodes only (whose task may go out again as it was), on both
    /// stores: the coordinator holds no other, and reading those of ended nodes only to drop them cost
    /// the 8 MiB x 140 run of issue 31 1.1 GB on every load.
    @Test func aRunLoadsOnlyItsQueuedNodesInputs() throws {
        let graph = try Self.graph(#"{"nodes": {"a": {"procedure": "p"}, "b": {"procedure": "p"}, "c": {"procedure": "p"}}}"#)
        try Self.onBoth(graph) { backend, id in
            var ended = NodeChange(key: "a", status: .succeeded, attempt: 1, output: ["done": true])
            ended.finishedAt = Date(timeIntervalSince1970: 1_800_000_001)
            _ = try backend.store.apply(
                [
                    (
                        id,
                        [
                            .runStatus(.running, error: nil), .node(NodeChange(key: "a", status: .queued, attempt: 1, input: ["n": 1])),
                            .node(NodeChange(key: "b", status: .queued, attempt: 1, input: ["n": 2])),
                            .node(NodeChange(key: "c", status: .queued, attempt: 1, input: ["n": 3])),
                            .node(NodeChange(key: "c", status: .running, attempt: 1, worker: "w")), .node(ended),
                        ]
                    )
                ], heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [], now: Date(timeIntervalSince1970: 1_800_000_000))
            let state = try #require(try backend.store.loadRun(id))
            #expect(state.nodes["a"]?.status == .succeeded)
            #expect(state.nodes["a"]?.input == nil, "\(backend.name)")
            #expect(state.nodes["b"]?.input == ["n": 2], "\(backend.name)")
            #expect(state.nodes["c"]?.input == nil, "\(backend.name)")
        }
    }

    /// `failRun` ends an unfinished run with its error and releases its holds; a finished run stays as it was.
    @Test func failRunEndsTheRunAndReleasesItsHolds() throws {
        let graph = try Self.graph(#"{"nodes": {"a": {"procedure": "p", "mutex": ["db"]}}}"#)
        var results: [String] = []
        try ContractBackend.grantingAlone {
            try Self.onBoth(graph) { backend, id in
                let store = backend.store
                let hold = HoldChange.insert(runID: id, request: AdmissionRequest(key: "a", claims: [AdmissionClaim(name: "db-\(id)", limit: 1)]))
                _ = try store.apply(
                    [(id, [.runStatus(.running, error: nil), .node(NodeChange(key: "a", status: .queued, attempt: 1, input: ["n": 1]))])],
                    heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [hold], now: Date(timeIntervalSince1970: 1_800_000_000))
                #expect(try store.grantWaiting(now: Date()).granted.contains { $0.runID == id })
                #expect(try store.loadHolds().contains { $0.runID == id && $0.granted })
                try store.failRun(id, error: "cannot go on\u{0}")
                try store.failRun(id, error: "a second time")  // a finished run is left alone
                let state = try #require(try store.loadRun(id))
                #expect(try store.loadHolds().contains { $0.runID == id } == false)
                #expect(try store.activeRunIDs().contains(id) == false)
                results.append("\(state.status) \(state.error ?? "-") \(RunSnapshot(state, numbered: false))")
            }
        }
        #expect(results[0] == results[1])
        #expect(results[1].hasPrefix("failed cannot go on "))
    }

    /// A batch PostgreSQL rejects (an event of a run that does not exist, text with a NUL) fails
    /// with the same class of failure on both, and writes nothing.
    @Test func aRejectedBatchFailsTheSameAndWritesNothing() throws {
        let graph = try Self.graph(#"{"nodes": {"a": {"procedure": "p"}}}"#)
        var outcomes: [String] = []
        try Self.onBoth(graph) { backend, id in
            let store = backend.store
            let before = RunSnapshot(try #require(try store.loadRun(id)), numbered: false)
            let ghost = "0f0f0f0f-0000-4000-8000-00000000dead"
            let queued: SchedulerCommand = .node(NodeChange(key: "a", status: .queued, attempt: 1, input: [:]))
            for batch in [
                [(id, [queued]), (ghost, [SchedulerCommand.event(key: "a", kind: .log, detail: [:])])],
                [(id, [queued, .node(NodeChange(key: "a", status: .failed, attempt: 1, output: ["text": "nul \u{0} inside"]))])],
                [(id, [queued]), ("not-a-uuid", [.runStatus(.running, error: nil)])],
            ] {
                do {
                    _ = try store.apply(batch, heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [], now: Date())
                    outcomes.append("\(backend.name): stored")
                } catch {
                    outcomes.append("\(backend.name): \(StoreFailure(error))")
                }
                #expect(RunSnapshot(try #require(try store.loadRun(id)), numbered: false) == before, "\(backend.name)")
            }
        }
        #expect(outcomes.map { $0.split(separator: " ").last! } == Array(repeating: "rejectData", count: 6), "\(outcomes)")
    }

    /// Requests: open until handled, in order; `apply(handledRequests:)` closes them.
    @Test func requestsAreOpenUntilHandled() throws {
        let graph = try Self.graph(#"{"nodes": {"a": {"procedure": "p"}}}"#)
        var seen: [[String]] = []
        try Self.onBoth(graph) { backend, id in
            let first = try backend.request(.cancel, id)
            let second = try backend.request(.retry, id)
            let open = try backend.store.openRequests().filter { $0.runID == id }
            #expect(open.map(\.id) == [first, second])
            _ = try backend.store.apply([], heartbeats: [], handledRequests: [first], confirmedBatch: nil, holds: [], now: Date())
            let after = try backend.store.openRequests().filter { $0.runID == id }
            seen.append(open.map { "\($0.kind) \($0.node ?? "-") \($0.reason ?? "-")" } + ["|"] + after.map { "\($0.kind)" })
        }
        #expect(seen[0] == seen[1])
        #expect(seen[1] == ["cancel - -", "retry - -", "|", "retry"])
    }

    /// The cache: a stored output is found within its ttl, newest first, and not after it.
    @Test func theCacheFindsTheNewestOutputWithinItsTTL() throws {
        let graph = try Self.graph(#"{"nodes": {"a": {"procedure": "p"}}}"#)
        let procedure = "contract.\(UUID().uuidString)"  // nothing an earlier test process stored
        let lookup = CacheLookup(procedure: procedure, input: #"{"n":1}"#, ttl: 60)
        let at = Date(timeIntervalSince1970: 1_800_000_000)
        var seen: [[String]] = []
        try Self.onBoth(graph) { backend, id in
            let store = backend.store
            for (offset, output) in [(0.0, JSON.int(1)), (10, .int(2))] {
                _ = try store.apply(
                    [(id, [.cacheStore(key: "a", lookup: lookup, output: output)])], heartbeats: [], handledRequests: [],
                    confirmedBatch: nil, holds: [], now: at.addingTimeInterval(offset))
            }
            seen.append(
                try [5, 65, 75].map { offset in
                    let hit = try store.cacheLookup(lookup, now: at.addingTimeInterval(offset))
                    return hit.map { "\($0.output.serialized()) \($0.sourceNode) \($0.sourceRun == id)" } ?? "miss"
                })
        }
        #expect(seen[0] == seen[1])
        #expect(seen[1] == ["2 a true", "2 a true", "miss"])
    }

    /// A listening session hears of new runs and requests; one that does not listen hears nothing.
    @Test func notificationsReachListeners() throws {
        let graph = try Self.graph(#"{"nodes": {"a": {"procedure": "p"}}}"#)
        var seen: [[String]] = []
        for backend in [try ContractBackend.postgres(), try ContractBackend.memory()] {
            let listener = try backend.connect()
            defer { listener.close() }
            try listener.listenForWork()
            let id = try backend.submit(graph)
            defer { backend.finish([id]) }
            _ = try backend.request(.cancel, id)
            var heard: [StoreNotification] = []
            let deadline = Date().addingTimeInterval(5)
            while heard.count < 2 && Date() < deadline { heard += try listener.notifications(timeout: 0.2) }
            seen.append(
                heard.map {
                    switch $0 {
                    case let .newRun(run): "run \(run == id)"
                    case let .newRequest(run): "request \(run == id)"
                    case .grants: "grants"
                    case .pauses: "pauses"
                    }
                } + ["|"] + (try backend.store.notifications(timeout: 0)).map { "\($0)" })
        }
        #expect(seen[0] == seen[1])
        #expect(seen[1] == ["run true", "request true", "|"])
    }

    /// A pause and a resume are heard by every listening session (once each, not when nothing
    /// changed), and `loadPauses` gives what is paused; a run that does not exist cannot be paused.
    @Test func pausesAreHeardAndLoaded() throws {
        let name = "contract-\(UUID().uuidString.prefix(8)).p"
        var seen: [[String]] = []
        for backend in [try ContractBackend.postgres(), try ContractBackend.memory()] {
            let listener = try backend.connect()
            defer { listener.close() }
            try listener.listenForWork()
            let pause = { (target: PauseTarget) throws -> Bool in
                if let store = backend.postgres { return try store.pause(target).changed }
                return try backend.memory!.pause(target)
            }
            let resume = { (target: PauseTarget) throws -> Bool in
                if let store = backend.postgres { return try store.resume(target).changed }
                return backend.memory!.resume(target)
            }
            defer { backend.finish([]) }
            let target = PauseTarget(.procedure, name)
            var lines: [String] = []
            func heard() throws -> String { "\(try listener.notifications(timeout: 1).map { "\($0)" })" }
            lines.append("pause \(try pause(target)) \(try heard()) \(try backend.store.loadPauses().procedures.contains(name))")
            lines.append("again \(try pause(target)) \(try listener.notifications(timeout: 0.2).count)")
            lines.append("resume \(try resume(target)) \(try heard()) \(try backend.store.loadPauses().procedures.contains(name))")
            lines.append("again \(try resume(target)) \(try listener.notifications(timeout: 0.2).count)")
            lines.append("ghost run \((try? pause(PauseTarget(.run, "00000000-0000-4000-8000-00000000dead"))) == nil)")
            seen.append(lines)
        }
        #expect(seen[0] == seen[1])
        #expect(seen[1] == [#"pause true ["pauses"] true"#, "again false 0", #"resume true ["pauses"] false"#, "again false 0", "ghost run true"])
    }

    /// Workers come from heartbeats, are live within three of their intervals and a second, and a
    /// stopping heartbeat removes them.
    @Test func heartbeatsKeepWorkersLive() throws {
        let prefix = "contract-\(UUID().uuidString.prefix(8))-"
        var seen: [[String]] = []
        for backend in [try ContractBackend.postgres(), try ContractBackend.memory(clock: { Date() })] {
            defer { backend.finish([]) }
            let store = backend.store
            func beat(_ name: String, stopping: Bool = false) -> WorkerHeartbeat {
                WorkerHeartbeat(
                    id: prefix + name, host: "h", pid: 7, pools: ["default"], procedures: ["p", "q"], slots: 2,
                    startedAt: Date(timeIntervalSince1970: 1_800_000_000.25), interval: 5, stopping: stopping,
                    schemas: name == "a" ? ["p": ProcedureSchema(input: .any, output: .any)] : nil)
            }
            _ = try store.apply([], heartbeats: [beat("a"), beat("b"), beat("a")], handledRequests: [], confirmedBatch: nil, holds: [], now: Date())
            let live = try store.liveWorkers(within: nil).filter { $0.id.hasPrefix(prefix) }
            _ = try store.apply([], heartbeats: [beat("b", stopping: true)], handledRequests: [], confirmedBatch: nil, holds: [], now: Date())
            let after = try store.liveWorkers(within: 3600).filter { $0.id.hasPrefix(prefix) }
            seen.append(
                live.map { "\($0.id.dropFirst(prefix.count)) \($0.pools) \($0.procedures) \($0.slots) \($0.startedAt) \($0.schemas.keys.sorted())" }
                    + ["|"] + after.map { String($0.id.dropFirst(prefix.count)) })
            #expect(live.allSatisfy { $0.secondsSinceSeen < 5 })
            for id in after.map(\.id) {
                _ = try store.apply(
                    [], heartbeats: [beat(String(id.dropFirst(prefix.count)), stopping: true)], handledRequests: [], confirmedBatch: nil,
                    holds: [], now: Date())
            }
        }
        #expect(seen[0] == seen[1])
        #expect(seen[1].last == "a")
    }

    /// A NUL in a node's error is dropped the same way on both, whether the batch's rows go as one
    /// JSON document (few) or as text arrays (32 and more): a worker's message cannot fail a run, let
    /// alone stop the coordinator.
    @Test(arguments: [2, 40])
    func aNulCharacterFailsTheSameWayAtAnySize(_ count: Int) throws {
        let graph = try GraphDecoder().decode(
            JSON(["nodes": .object(JSONObject((0..<count).map { ("n\($0)", ["procedure": "p"] as JSON) }))]))
        var seen: [String] = []
        try Self.onBoth(graph) { backend, id throws in
            let commands = (0..<count).map { i in
                SchedulerCommand.node(NodeChange(key: "n\(i)", status: .failed, attempt: 1, error: i == 1 ? "nul \u{0} inside" : "e"))
            }
            do {
                _ = try backend.store.apply([(id, commands)], heartbeats: [], handledRequests: [], confirmedBatch: nil, holds: [], now: Date())
                seen.append("stored")
            } catch {
                seen.append("\(StoreFailure(error))")
            }
            #expect(try backend.store.loadRun(id)?.nodes["n1"]?.error == "nul  inside")
        }
        #expect(seen == ["stored", "stored"])
    }
}
