import Baton
import BatonAMQP
import Foundation

/// The guarantees the simulator checks, after every step and at the end of a seed.
struct InvariantChecker {
    /// A submitted run and the graph it came from.
    struct Submitted {
        let runID: String
        let graph: SimulationGraph
    }

    private(set) var violations: [String] = []
    /// More failures of one batch than this (the faults injected fail a few in a row at most) is a batch
    /// sent again unchanged without end.
    static let mostFailuresOfOneBatch = 20
    private var batchResentReported = false
    /// The quorum queues' own checks, in a quorum run.
    var quorum: QuorumInvariants?
    /// Ended nodes as first seen ended: status and output, which must never change.
    private var ended: [String: (status: NodeStatus, output: JSON?)] = [:]
    private(set) var nodesEnded = 0
    /// The value each signal node was sent (accepted by the store), by run id + "/" + key.
    private var signalsSent: [String: JSON] = [:]

    /// A signal the store accepted.
    mutating func signalled(runID: String, key: String, value: JSON) {
        let id = runID + "/" + key
        if signalsSent[id] != nil { violate("run \(runID) node \(key): signalled twice") }
        signalsSent[id] = value
    }

    /// Each signal node succeeded with exactly the value sent, or timed out or was cancelled with a
    /// reason, never both; one nobody signalled did not succeed.
    mutating func checkSignals(store: MemoryStore, run: Submitted) {
        for key in run.graph.signals.keys.sorted() + run.graph.silentSignals {
            guard let row = store.node(key, ofRun: run.runID) else { continue }
            let sent = signalsSent[run.runID + "/" + key]
            let kinds = store.events(ofRun: run.runID).filter { $0.node == key }.map(\.kind)
            switch row.status {
            case .succeeded:
                if sent == nil || !Self.same(row.output ?? .null, sent!) {
                    violate(
                        "run \(run.runID) node \(key): succeeded with \(row.output?.serialized() ?? "nothing"), but was sent \(sent?.serialized() ?? "nothing")"
                    )
                }
                if kinds.contains("timed_out") { violate("run \(run.runID) node \(key): succeeded and timed out") }
            case .failed:
                if row.error?.hasPrefix("timed out: no signal") != true {
                    violate("run \(run.runID) node \(key): failed without a timeout's reason: \(row.error ?? "none")")
                }
                if kinds.contains("succeeded") { violate("run \(run.runID) node \(key): timed out and succeeded") }
            case .cancelled:
                if (row.error ?? "").isEmpty { violate("run \(run.runID) node \(key): cancelled with no reason") }
            default:
                break  // a run that did not end is reported as such
            }
        }
    }

    mutating func violate(_ line: String) {
        if !violations.contains(line) { violations.append(line) }
    }

    /// One attempt of one node (and phase), as tasks and reports name it.
    struct Attempt: Hashable {
        let runID: String
        let key: String
        let attempt: Int
        let phase: String
    }

    /// Attempts whose result report the broker confirmed.
    private var confirmedResults: Set<Attempt> = []
    /// Per attempt, the newest copy of its task a worker published again (republished, handed
    /// back, or dead-lettered with the quorum queue's count) and the broker confirmed, by message number.
    private var confirmedCopies: [Attempt: Int] = [:]

    /// A message the broker confirmed to its publisher.
    mutating func confirmed(_ message: MemoryMessage) {
        for line in quorum?.confirmed(message) ?? [] { violate(line) }
        guard message.publisher != ReportForger.name else { return }  // a forged result stands for no worker's
        if (message.exchange == BatonTopology.reportsExchange && message.deliveries == nil)
            || (message.exchange.isEmpty && message.routingKey == BatonTopology.resultsQueue)
        {
            if let report = try? ReportMessage(decoding: message.body), report.kind == .result {
                confirmedResults.insert(Attempt(runID: report.runID, key: report.key, attempt: report.attempt, phase: report.phase.rawValue))
            }
        } else if message.exchange == BatonTopology.tasksExchange || message.exchange == BatonTopology.deadExchange,
            !message.publisher.hasPrefix("coordinator"),
            let task = try? TaskDispatch(decoding: message.body)
        {
            let attempt = Attempt(runID: task.runID, key: task.key, attempt: task.attempt, phase: task.phase.rawValue)
            confirmedCopies[attempt] = max(confirmedCopies[attempt] ?? 0, message.id)
        }
    }

    /// A task a worker acked: its result must be confirmed at the broker already, or a copy of it
    /// published again (confirmed, newer than the copy acked), or the node must have moved on to a
    /// newer attempt in the store (a superseded copy is dropped). Otherwise a lost report would
    /// leave its node waiting for ever.
    mutating func acked(task message: MemoryMessage, store: MemoryStore) {
        guard let task = try? TaskDispatch(decoding: message.body) else { return }
        let attempt = Attempt(runID: task.runID, key: task.key, attempt: task.attempt, phase: task.phase.rawValue)
        if confirmedResults.contains(attempt) || (confirmedCopies[attempt] ?? 0) > message.id { return }
        if let row = store.node(task.key, ofRun: task.runID), row.attempts > task.attempt { return }
        violate(
            "run \(task.runID) node \(task.key) attempt \(task.attempt): a worker acked its task before its result (or a copy of the task) was confirmed"
        )
    }

    /// A delivery from a queue to a consumer that acks.
    mutating func delivered(_ delivery: MemoryDelivery) {
        for line in quorum?.delivered(delivery) ?? [] { violate(line) }
    }

    /// A worker started the task it holds as `started` (with quorum queues: none of a higher band waits).
    mutating func started(_ started: MemoryHeldTask, holding held: [MemoryHeldTask], worker: String, store: MemoryStore) {
        for line in quorum?.started(started, holding: held, worker: worker, store: store) ?? [] { violate(line) }
    }

    /// A task a worker started: the worker serves its procedure at its version (routing by version).
    mutating func served(_ started: MemoryHeldTask, by registry: ProcedureRegistry, worker: String) {
        guard let task = started.task, !registry.contains(task.procedure) else { return }
        violate("run \(task.runID) node \(task.key): worker \(worker) started a task of \(task.procedure), which it does not serve")
    }

    /// A report the coordinator acked: its effect must be committed already; a forged one's, never.
    mutating func acked(report body: [UInt8], forged: Bool = false, store: MemoryStore) {
        guard let report = try? ReportMessage(decoding: body) else { return }
        if forged {
            if let row = store.node(report.key, ofRun: report.runID), ReportForger.changed(row) {
                violate(
                    "run \(report.runID) node \(report.key) attempt \(report.attempt): a forged \(report.kind.rawValue) report (no token) changed it")
            }
            return
        }
        guard report.kind == .result, report.phase == .run else { return }
        // A report for a run that ended is acked without effect: the run has no use for it.
        guard store.run(report.runID)?.status.isTerminal == false else { return }
        guard let row = store.node(report.key, ofRun: report.runID), row.attempts == report.attempt else { return }
        if report.spawned {
            if row.fragment == nil {
                violate("run \(report.runID) node \(report.key) attempt \(report.attempt): spawn acked before its children were stored")
            }
        } else if row.status == .queued || row.status == .running {
            violate(
                "run \(report.runID) node \(report.key) attempt \(report.attempt): its result was acked while the node is still \(row.status.rawValue) in the store"
            )
        }
    }

    /// After every step: ended nodes stay as they ended; admission limits hold in what is committed.
    mutating func check(store: MemoryStore, runs: [Submitted]) {
        for conflict in store.epochConflicts where !violations.contains(conflict) { violate(conflict) }
        if store.mostFailuresOfOneBatch > Self.mostFailuresOfOneBatch && !batchResentReported {
            batchResentReported = true
            violate("a batch failed \(store.mostFailuresOfOneBatch) times unchanged: it is sent again without end instead of split")
        }
        var holding: [String: [String]] = [:]
        for run in runs {
            for row in store.nodes(ofRun: run.runID) {
                let id = run.runID + "/" + row.key
                if ReportForger.changed(row) {  // no report without its attempt's token changes a node
                    violate(
                        "run \(run.runID) node \(row.key): a forged report (no token) changed it: \(row.status.rawValue), worker \(row.worker ?? "none"), output \(row.output?.serialized() ?? "none")"
                    )
                }
                if row.status.isTerminal {
                    // Compared as values, serialized only to say how they differ (big outputs cost to serialize at every step).
                    if let first = ended[id] {
                        if first.status != row.status || first.output != row.output {
                            violate(
                                "run \(run.runID) node \(row.key) ended \(first.status.rawValue) with \((first.output?.serialized() ?? "null").prefix(300)), then became \(row.status.rawValue) with \((row.output?.serialized() ?? "null").prefix(300))"
                            )
                        }
                    } else {
                        ended[id] = (row.status, row.output)
                        nodesEnded += 1
                    }
                } else if let first = ended[id] {
                    violate("run \(run.runID) node \(row.key) ended \(first.status.rawValue), then became \(row.status.rawValue) again")
                }
                // A run that ended (failed as a whole, say) keeps its rows as they were; it holds nothing.
                if let claim = run.graph.claims[row.key], row.status == .queued || row.status == .running,
                    store.run(run.runID)?.status.isTerminal == false
                {
                    holding[claim.name, default: []].append(id)
                }
            }
        }
        for (name, holders) in holding.sorted(by: { $0.key < $1.key }) {
            let limit = runs.lazy.compactMap { $0.graph.claims.values.first { $0.name == name }?.limit }.first ?? 1
            if holders.count > limit {
                violate("\(holders.count) nodes hold '\(name)' at once (limit \(limit)): \(holders.sorted().joined(separator: ", "))")
            }
        }
        var cached: [String: Int] = [:]
        for row in store.cacheRows { cached[row.procedure + " " + row.input, default: 0] += 1 }
        for (input, count) in cached.sorted(by: { $0.key < $1.key }) where count > 1 {
            violate("the cached value of \(input) was computed and stored \(count) times")
        }
    }

    /// At the end (after the heal): no node stays queued for ever after its queue is lost. A node of a
    /// run that did not end, queued, whose task is nowhere in the broker (`held` says where: ready,
    /// delivered, in flight) would never run again: its queue was deleted or purged under it, and
    /// nobody published it again.
    mutating func checkStranded(store: MemoryStore, runs: [Submitted], held: (String, String, Int) -> Bool) {
        for run in runs where store.run(run.runID)?.status.isTerminal == false {
            for row in store.nodes(ofRun: run.runID) where row.status == .queued && !held(run.runID, row.key, row.attempts) {
                violate(
                    "run \(run.runID) node \(row.key) attempt \(row.attempts) stays queued for ever: its task is in no queue (lost with its queue) and was never published again"
                )
            }
        }
    }

    /// At the end: every run ended, as its graph says it must, with its outputs. A run failed by a
    /// node whose task injected faults alone returned past the delivery limit (`deadLetteredByFaults`)
    /// ended as documented: the limit cannot tell deaths a task caused from deaths it only saw.
    /// Returns how many runs ended so.
    @discardableResult
    mutating func finish(store: MemoryStore, runs: [Submitted], deadLetteredByFaults: [(runID: String, key: String)] = []) -> Int {
        var excused = 0
        checkRates(store: store, runs: runs)
        checkShares(store: store)
        for run in runs {
            guard let row = store.run(run.runID) else {
                violate("run \(run.runID) (\(run.graph.name)) is missing")
                continue
            }
            checkSignals(store: store, run: run)
            guard row.status.isTerminal else {
                let open = store.nodes(ofRun: run.runID).filter { !$0.status.isTerminal }.map { "\($0.key) \($0.status.rawValue)" }
                violate("run \(run.runID) (\(run.graph.name)) did not end: \(row.status.rawValue), nodes \(open.joined(separator: ", "))")
                continue
            }
            // A data error the simulator injected on the run's own write fails that run, as the error
            // table says: the right end for it (the other runs of its batch go on).
            if row.status == .failed, let error = row.error, error.contains("(22023)"), error.contains("injected by MemoryStore") { continue }
            if row.status == .failed, let error = row.error, error.contains("dead-lettered after"),
                deadLetteredByFaults.contains(where: { $0.runID == run.runID && error.contains("node '\(Self.node(ofTask: $0.key))' failed") })
            {
                excused += 1
                continue
            }
            guard row.status == .succeeded else {
                violate("run \(run.runID) (\(run.graph.name)) ended \(row.status.rawValue): \(row.error ?? "no error")")
                continue
            }
            checkHistory(store: store, runID: run.runID)
            for line in quorum?.finish(store: store, runID: run.runID, graph: run.graph) ?? [] { violate(line) }
            for (key, expected) in run.graph.outputs.sorted(by: { $0.key < $1.key }) {
                let got = store.node(key, ofRun: run.runID)?.output ?? .null
                if !Self.same(got, expected) {
                    violate(
                        "run \(run.runID) (\(run.graph.name)) node \(key): output \(got.serialized().prefix(300)), expected \(expected.serialized().prefix(300))"
                    )
                }
            }
        }
        return excused
    }

    /// The node a task's key stands for: itself, or for an element of a map (`r4/0`) the map's node.
    static func node(ofTask key: String) -> Substring { key.split(separator: "/", maxSplits: 1).first ?? Substring(key) }

    /// Rate limits, across every run and coordinator: no more than `limit` nodes of a rate key were
    /// queued (the moment the coordinator let them go, as their `queued` events record it) within any
    /// window of `per`.
    mutating func checkRates(store: MemoryStore, runs: [Submitted]) {
        var times: [String: (limit: Int, per: Double, at: [(Date, String)])] = [:]
        for run in runs where !run.graph.rates.isEmpty {
            for event in store.events(ofRun: run.runID) where event.eventKind == .queued {
                guard let node = event.node, let rate = run.graph.rates[node] else { continue }
                let attempt = event.detail["attempt"]?.intValue ?? 0
                times[rate.key, default: (rate.limit, rate.per, [])].at.append((event.at, "\(run.runID.suffix(2))/\(node)#\(attempt)"))
            }
        }
        for (key, rate) in times.sorted(by: { $0.key < $1.key }) {
            let at = rate.at.sorted { $0.0 < $1.0 }
            for i in at.indices where i + rate.limit < at.count && at[i + rate.limit].0.timeIntervalSince(at[i].0) < rate.per {
                let burst = at[i...(i + rate.limit)].map { String(format: "%.3f", $0.0.timeIntervalSince1970) + " " + $0.1 }
                violate(
                    "rate '\(key)': \(rate.limit + 1) nodes queued within \(rate.per) s (limit \(rate.limit)): at \(burst.joined(separator: ", "))")
                break
            }
        }
    }

    /// Fair shares, across every run and coordinator, from the holds each grant pass saw: a key A is
    /// granted a share claim while a key B waits for it with a head of the same priority only if A
    /// held no more grants per unit of weight than B (so while B waits, A holds at most its weighted
    /// share plus the window), and never while B waits with a higher priority. Only waiters wanting
    /// nothing but the share count (another claim may hold them back).
    mutating func checkShares(store: MemoryStore) {
        for (pass, (before, granted)) in store.sharePasses.enumerated() {
            let bySeq = Dictionary(before.map { ($0.seq, $0) }, uniquingKeysWith: { a, _ in a })
            var held: [String: [String: Int]] = [:]
            var waiting: [String: [String: [AdmissionTable.Entry]]] = [:]
            for entry in before {
                for claim in entry.claims {
                    guard let key = claim.shareKey else { continue }
                    if entry.granted {
                        held[claim.name, default: [:]][key, default: 0] += 1
                    } else if entry.claims.count == 1 {
                        waiting[claim.name, default: [:]][key, default: []].append(entry)
                    }
                }
            }
            for seq in granted {
                guard let entry = bySeq[seq], let claim = entry.claims.first(where: \.isShare), let a = claim.shareKey else { continue }
                let wa = claim.weight ?? 1
                let heldA = held[claim.name]?[a] ?? 0
                for (b, line) in waiting[claim.name] ?? [:] where b != a && !line.isEmpty {
                    let head = line.max { ($0.priority, -$0.seq) < ($1.priority, -$1.seq) }!
                    let wb = head.claims.first(where: \.isShare)?.weight ?? 1
                    let heldB = held[claim.name]?[b] ?? 0
                    if head.priority > entry.priority {
                        violate("\(claim.name) pass \(pass): '\(a)' granted at priority \(entry.priority) while '\(b)' waited at \(head.priority)")
                    } else if head.priority == entry.priority && heldA * wb > heldB * wa {
                        violate(
                            "\(claim.name) pass \(pass): '\(a)' (weight \(wa)) granted holding \(heldA) while '\(b)' (weight \(wb)) waited holding \(heldB)"
                        )
                    }
                }
                held[claim.name, default: [:]][a, default: 0] += 1
                waiting[claim.name]?[a]?.removeAll { $0.seq == seq }
            }
        }
    }

    /// A succeeded node's record names the worker that finished it, and its history says that
    /// worker started its last attempt (after whatever redelivery happened on the way).
    mutating func checkHistory(store: MemoryStore, runID: String) {
        let events = store.events(ofRun: runID)
        for row in store.nodes(ofRun: runID) where row.status == .succeeded {
            guard let worker = row.worker else { continue }  // not run by a worker (cached, a group's end)
            let started = events.last { $0.node == row.key && $0.eventKind == .started }
            guard let started, started.detail["worker"] == .string(worker), started.detail["attempt"] == .int(Int64(row.attempts)) else {
                violate(
                    "run \(runID) node \(row.key): finished by \(worker) in attempt \(row.attempts), but its last started event says "
                        + (started.map { "\($0.detail["worker"]?.serialized() ?? "no worker"), attempt \($0.detail["attempt"]?.serialized() ?? "?")" }
                            ?? "nothing"))
                continue
            }
        }
    }

    /// JSON equality with numbers compared by value (2 and 2.0 are the same).
    static func same(_ a: JSON, _ b: JSON) -> Bool {
        if let x = a.numberValue, let y = b.numberValue { return x == y }
        switch (a, b) {
        case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case let (.object(x), .object(y)):
            let xs = x.members.sorted { $0.key < $1.key }
            let ys = y.members.sorted { $0.key < $1.key }
            return xs.count == ys.count && zip(xs, ys).allSatisfy { $0.key == $1.key && same($0.value, $1.value) }
        default: return a == b
        }
    }
}
