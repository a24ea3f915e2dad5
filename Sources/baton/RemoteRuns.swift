import Baton
import BatonClient
import BatonCommandLine
import BatonDashboard
import BatonStore
import Foundation

/// The run commands through `baton server`'s API (`--server`/`BATON_SERVER` with `BATON_TOKEN`): no
/// database. The API's JSON becomes the row types the direct path reads, so the output is the same;
/// the server's one-line error becomes the CLI's (`baton: ...`), with docs/cli.md's exit codes.
struct RemoteRuns: RunAccess {
    let client: BatonClient

    init(server: URL, token: String) {
        client = BatonClient(server: server, token: token)
    }

    func resolveRunID(_ text: String) async throws -> String {
        let lower = text.lowercased()
        guard lower.count == 36, UUID(uuidString: lower) != nil else {
            throw CLIFailure("'\(text)' is not a whole run id: through --server, give the whole id (a prefix needs the database)", exitCode: 2)
        }
        return lower
    }

    func run(_ id: String) async throws -> RunRow {
        try decode(try await call("GET", "/runs/\(id)")["run"])
    }

    func nodes(ofRun id: String) async throws -> [NodeRow] {
        var rows: [NodeRow] = []
        var cursor: String?
        repeat {
            let page = try await call("GET", "/runs/\(id)/nodes?limit=1000" + (cursor.map { "&cursor=\(Self.query($0))" } ?? ""))
            for node in page["nodes"]?.arrayValue ?? [] {
                // The direct path has no list where no worker was lost, the API an empty one.
                guard var object = node.objectValue else { continue }
                if object["lost_workers"]?.arrayValue?.isEmpty == true { object["lost_workers"] = .null }
                rows.append(try decode(.object(object)))
            }
            cursor = page["next_cursor"]?.stringValue
        } while cursor != nil
        return rows
    }

    func events(ofRun id: String, after: Int) async throws -> [EventRow] {
        var all: [EventRow] = []
        var after = after
        while true {
            let page = try await call("GET", "/runs/\(id)/events?after=\(after)&limit=1000")
            // Built member by member: a decoder would not keep the order of `detail`'s members, which the text shows.
            let events = (page["events"]?.arrayValue ?? []).compactMap { e -> EventRow? in
                guard let id = e["id"]?.intValue, let kind = e["kind"]?.stringValue, let at = e["at"]?.stringValue else { return nil }
                return EventRow(id: id, node: e["node"]?.stringValue, kind: kind, at: at, detail: e["detail"] ?? .null)
            }
            all += events
            guard let last = events.last, events.count == 1000 else { return all }
            after = last.id
        }
    }

    func runs(status: RunStatus?, limit: Int) async throws -> [RunRow] {
        var rows: [RunRow] = []
        var cursor: String?
        repeat {
            var path = "/runs?limit=\(min(1000, limit - rows.count))"
            if let status { path += "&status=\(status.rawValue)" }
            if let cursor { path += "&cursor=\(Self.query(cursor))" }
            let page = try await call("GET", path)
            rows += try (page["runs"]?.arrayValue ?? []).map(decode)
            cursor = page["next_cursor"]?.stringValue
        } while cursor != nil && rows.count < limit
        return rows
    }

    func timeline(ofRun id: String) async throws -> (status: RunStatus, timeline: RunTimeline) {
        // Built here from the run's nodes and events as the store builds it, to the microsecond (the
        // API's timeline has milliseconds, which would move a short run's bars).
        let status = try await run(id).status
        let nodes = try await nodes(ofRun: id).map { (key: $0.key, status: $0.status) }
        let events = try await events(ofRun: id, after: 0).compactMap { e -> TimelineEvent? in
            guard let node = e.node, !["progress", "log", "log_limit"].contains(e.kind), let at = DisplayTime.seconds(e.at) else { return nil }
            return TimelineEvent(
                node: node, kind: e.kind, at: at, attempt: e.detail["attempt"]?.intValue,
                dueAt: e.detail["due_at"]?.stringValue.flatMap(DisplayTime.seconds),
                timedOut: e.detail["error"]?.stringValue?.hasPrefix("timed out") == true)
        }
        return (status, RunTimeline(nodes: nodes, events: events, now: status.isTerminal ? nil : Date().timeIntervalSince1970))
    }

    func outputs(ofRun id: String) async throws -> JSON {
        try await call("GET", "/runs/\(id)")["outputs"] ?? .null
    }

    func progress(ofRun id: String) async throws -> RunProgress {
        let answer = try await call("GET", "/runs/\(id)")
        return Self.progress(answer, run: try decode(answer["run"]))
    }

    func unserved(ofRun id: String, limit: Int) async throws -> [String] {
        Array(Self.unserved(try await call("GET", "/runs/\(id)")).prefix(limit).map(\.description))
    }

    /// The run's progress from `GET /runs/{id}`'s answer.
    static func progress(_ answer: JSON, run: RunRow) -> RunProgress {
        func counts(_ json: JSON?) -> [NodeStatus: Int] {
            var counts: [NodeStatus: Int] = [:]
            for (key, value) in json?.objectValue?.members ?? [] {
                if let status = NodeStatus(rawValue: key), let n = value.intValue, n > 0 { counts[status] = n }
            }
            return counts
        }
        return RunProgress(
            status: run.status, error: run.error, top: counts(answer["progress"]?["top"]), children: counts(answer["progress"]?["children"]))
    }

    /// The `unserved` member of an answer (`UnservedProcedures.json`) as the nodes it lists.
    static func unserved(_ answer: JSON) -> [UnservedNode] {
        (answer["unserved"]?.arrayValue ?? []).flatMap { entry in
            (entry["nodes"]?.arrayValue ?? []).compactMap(\.stringValue).map {
                UnservedNode(key: $0, procedure: entry["procedure"]?.stringValue ?? "", pool: entry["pool"]?.stringValue ?? "")
            }
        }
    }

    func snapshot(ofRun id: String) async throws -> RunSnapshot {
        let answer = try await call("GET", "/runs/\(id)")
        let progress = Self.progress(answer, run: try decode(answer["run"]))
        let unserved = Self.unserved(answer)
        return RunSnapshot(
            progress: progress, running: Array((answer["running"]?.arrayValue ?? []).compactMap(\.stringValue).prefix(3)),
            unserved: (progress.counts[.queued] ?? 0) > 0 ? unserved.prefix(3).map(\.description).joined(separator: ", ") : "")
    }

    func awaitChange(ofRun id: String, after event: Int, refresh: Duration) async throws -> Int {
        // The server holds the answer until an event comes (or 2 s pass): no polling loop here.
        let page = try await call("GET", "/runs/\(id)/events?after=\(event)&limit=1000&wait=2s")
        let last = page["last_id"]?.intValue ?? event
        if last != event { try await Task.sleep(for: refresh) }  // a busy run: no faster than a display's refresh
        return last
    }

    func submit(_ submission: Submission) async throws -> SubmittedRunAnswer {
        guard let text = String(bytes: submission.bytes, encoding: .utf8) else {
            throw CLIFailure("\(submission.path): the file is not UTF-8 text", exitCode: 2)
        }
        var body: [(key: String, value: JSON)] = [("graph", .string(text))]
        if let input = submission.input { body.append(("input", input)) }
        if submission.allowUnknownProcedures { body.append(("allow_unknown_procedures", true)) }
        if !submission.typeCheck { body.append(("type_check", false)) }
        var headers: [String: String] = [:]
        if let key = submission.idempotencyKey { headers["Idempotency-Key"] = key }
        if let traceparent = submission.traceparent { headers["traceparent"] = traceparent }
        let answer: JSON
        do { answer = try await client.send("POST", "/runs", body: .object(JSONObject(body)), headers: headers) } catch let error as BatonClientError
        {
            throw Self.submitFailure(error, path: submission.path)
        }
        guard let id = answer["id"]?.stringValue, let status = answer["status"]?.stringValue.flatMap(RunStatus.init(rawValue:)) else {
            throw CLIFailure("the server's answer to the submit has no run id and status")
        }
        let unserved = Self.unserved(answer)
        return SubmittedRunAnswer(
            id: id, status: status, existing: answer["existing"] == true, nodeCount: answer["nodes"]?.intValue ?? 0,
            unserved: UnservedProcedures(unserved))
    }

    func request(cancel: Bool, _ id: String, reason: String?, from: String?, timeout: Double) async throws -> RequestAnswer {
        var body: [(key: String, value: JSON)] = []
        if cancel, let reason { body.append(("reason", .string(reason))) }
        if !cancel, let from { body.append(("from", .string(from))) }
        let answer = try await call(
            "POST", "/runs/\(id)/\(cancel ? "cancel" : "retry")?wait=\(Self.milliseconds(timeout))", body: .object(JSONObject(body)))
        guard let status = answer["status"]?.stringValue.flatMap(RunStatus.init(rawValue:)) else {
            throw CLIFailure("the server's answer has no run status")
        }
        return RequestAnswer(status: status, applied: answer["applied"] == true)
    }

    func bulk(_ action: BulkAction, _ filter: RunFilter, reason: String?, dryRun: Bool, timeout: Double) async throws -> BulkAnswer {
        var body: [(key: String, value: JSON)] = [("where", .string(filter.text))]
        if dryRun { body.append(("dry_run", true)) }
        if action == .cancel, let reason { body.append(("reason", .string(reason))) }
        let answer = try await call("POST", "/bulk/\(action.rawValue)?wait=\(Self.milliseconds(timeout))", body: .object(JSONObject(body)))
        guard let matched = answer["matched"]?.intValue else { throw CLIFailure("the server's answer has no count of the runs matched") }
        let runs: [RunRow] = try (answer["runs"]?.arrayValue ?? []).map(decode)
        return BulkAnswer(
            action: action, filter: filter.text, dryRun: dryRun, matched: matched, applied: answer["applied"]?.intValue ?? 0,
            batches: answer["batches"]?.intValue ?? 0, runs: runs)
    }

    func signal(_ id: String, node: String, value: JSON, maxBytes: Int, timeout: Double) async throws -> (applied: Bool, status: NodeStatus?) {
        let answer: JSON
        do {
            answer = try await client.send(
                "POST", "/runs/\(id)/signals?wait=\(Self.milliseconds(timeout))", body: ["node": .string(node), "value": value])
        } catch let error as BatonClientError where [404, 409, 413, 422].contains(error.status) {
            throw CLIFailure("cannot signal: \(error.message)", exitCode: 2)
        } catch let error as BatonClientError {
            throw Self.failure(error)
        }
        let status = answer["status"]?.stringValue.flatMap(NodeStatus.init(rawValue:))
        return (answer["applied"] == true, status)
    }

    func liveWorkers(within: Double?) async throws -> [WorkerRow] {
        try decode(try await call("GET", "/workers" + (within.map { "?within=\($0)" } ?? ""))["workers"])
    }

    func procedures() async throws -> [ProcedureVersionRow] {
        (try await call("GET", "/procedures")["procedures"]?.arrayValue ?? []).compactMap(ProcedureVersionRow.init(json:))
    }

    func coordinators() async throws -> (rows: [CoordinatorRow], partitions: Int) {
        let answer = try await call("GET", "/coordinators")
        return (try decode(answer["coordinators"]), answer["partitions"]?.intValue ?? 0)
    }

    /// `baton validate` through the server: the graph checked against the live workers' procedures; its name and node count.
    func validate(_ submission: Submission) async throws -> (name: String, nodes: Int) {
        var body: [(key: String, value: JSON)] = [("graph", .string(String(decoding: submission.bytes, as: UTF8.self)))]
        if let input = submission.input { body.append(("input", input)) }
        if submission.allowUnknownProcedures { body.append(("allow_unknown_procedures", true)) }
        if !submission.typeCheck { body.append(("type_check", false)) }
        let answer: JSON
        do { answer = try await client.send("POST", "/validate", body: .object(JSONObject(body))) } catch let error as BatonClientError {
            throw Self.submitFailure(error, path: submission.path)
        }
        return (answer["name"]?.stringValue ?? "", answer["nodes"]?.intValue ?? 0)
    }

    func close() {}

    /// One operation; a 429 is waited out (its `Retry-After`, at most three times), every other
    /// error becomes the CLI's line.
    func call(_ method: String, _ path: String, body: JSON? = nil) async throws -> JSON {
        var tries = 0
        while true {
            do { return try await client.send(method, path, body: body) } catch let error as BatonClientError {
                tries += 1
                guard error.status == 429, tries <= 3 else { throw Self.failure(error) }
                try await Task.sleep(for: .seconds(max(1, min(10, error.retryAfter ?? 1))))
            }
        }
    }

    /// The server's refusal as the CLI's own line: a token problem names BATON_TOKEN; bad input exits 2.
    static func failure(_ error: BatonClientError) -> CLIFailure {
        switch error.status {
        case 0: return CLIFailure("cannot reach the server: \(error.message)")
        case 401: return CLIFailure("the server refused BATON_TOKEN: \(error.message)")
        case 403: return CLIFailure("BATON_TOKEN lacks the scope for this: \(error.message)")
        case 400, 413, 415, 422: return CLIFailure(error.message, exitCode: 2)
        default: return CLIFailure(error.message)
        }
    }

    /// A refused submit in the words the direct path uses for the file `path`.
    static func submitFailure(_ error: BatonClientError, path: String) -> CLIFailure {
        // The server's words for its body (`graph:`, the body's flag) become the CLI's for the file and its flag.
        func named(_ line: String) -> String {
            (line.hasPrefix("graph:") ? path + line.dropFirst("graph".count) : line).replacingOccurrences(
                of: "no live worker serves it; send allow_unknown_procedures: true to submit anyway",
                with: "no worker serves it; see `baton procedures`")
        }
        switch error.status {
        case 422 where error.message.hasPrefix("graph: invalid graph") && !error.details.isEmpty:
            let n = error.details.count
            let lines = error.details.map { "  - " + named($0["message"]?.stringValue ?? "") }
            return CLIFailure("\(path): invalid graph (\(n) problem\(n == 1 ? "" : "s")):\n" + lines.joined(separator: "\n"), exitCode: 2)
        case 409 where error.message.hasPrefix("Idempotency-Key"):
            return CLIFailure(
                "--idempotency-key" + error.message.dropFirst("Idempotency-Key".count).replacingOccurrences(of: "; send that", with: "; submit that"),
                exitCode: 2)
        case 400, 413, 422: return CLIFailure(named(error.message), exitCode: 2)
        default: return failure(error)
        }
    }

    /// `wait=` text: milliseconds within the server's 0 to 60 s.
    static func milliseconds(_ seconds: Double) -> String { "\(Int((min(60, max(0, seconds)) * 1000).rounded()))ms" }

    static func query(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text }

    func decode<T: Decodable>(_ json: JSON?) throws -> T {
        guard let json else { throw CLIFailure("the server's answer lacks a member this command needs") }
        do { return try json.decode(as: T.self) } catch { throw CLIFailure("the server's answer could not be read: \(error)") }
    }
}
