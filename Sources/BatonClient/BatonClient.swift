import Baton
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A client of `baton server`'s HTTP API (docs/api.md) for Swift apps: async calls that never block
/// a thread, with only the server's URL and a token (`baton token create`); no database, no libpq.
///
/// ```swift
/// let baton = BatonClient(server: URL(string: "http://127.0.0.1:8080")!, token: token)
/// let run = try await baton.submit(graph: ["nodes": ["say": ["procedure": "baton.echo", "input": ["text": "hi"]]]])
/// let result = try await baton.result(of: run.id)
/// ```
public struct BatonClient: Sendable {
    public let server: URL
    let token: String
    let session: URLSession

    /// A client of the server at `server` (such as `http://127.0.0.1:8080`) that shows `token`.
    public init(server: URL, token: String, session: URLSession = .shared) {
        self.server = server
        self.token = token
        self.session = session
    }

    /// Starts a run of `graph` (a graph document) with `input`; `name` overrides the graph's. With an
    /// `idempotencyKey`, a second submit of the same graph and input answers the first run
    /// (`created` false). A graph the server refuses throws its error (422, every problem in `details`).
    public func submit(
        graph: JSON, input: JSON? = nil, name: String? = nil, idempotencyKey: String? = nil, allowUnknownProcedures: Bool = false
    ) async throws -> RunResult {
        var body: [(key: String, value: JSON)] = [("graph", graph)]
        if let input { body.append(("input", input)) }
        if let name { body.append(("name", .string(name))) }
        if allowUnknownProcedures { body.append(("allow_unknown_procedures", true)) }
        let answer = try await send("POST", "/runs", body: .object(JSONObject(body)), headers: idempotencyKey.map { ["Idempotency-Key": $0] } ?? [:])
        return try Self.result(answer, id: answer["id"], created: answer["existing"] != true)
    }

    /// Starts a run of a graph written as JSON or YAML text (a file's contents), as `submit(graph:)`.
    public func submit(graphText: String, input: JSON? = nil, name: String? = nil, idempotencyKey: String? = nil) async throws -> RunResult {
        try await submit(graph: .string(graphText), input: input, name: name, idempotencyKey: idempotencyKey)
    }

    /// The run now: its status, and its outputs and error once it ended.
    public func run(_ id: String) async throws -> RunResult {
        try await run(id, wait: 0)
    }

    /// Waits for the run to end (asking the server to hold each answer up to a minute, so no polling
    /// loop runs here) and returns it; throws `CancellationError` if the task is cancelled, or a
    /// `timeout` error (code `timeout`) when `timeout` passes first.
    public func result(of id: String, timeout: Duration = .seconds(24 * 3600)) async throws -> RunResult {
        let deadline = ContinuousClock.now + timeout
        while true {
            try Task.checkCancellation()
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                throw BatonClientError(status: 0, code: "timeout", message: "run \(id) did not end within \(timeout)")
            }
            let result = try await run(id, wait: min(60, max(0.001, Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)))
            if result.hasEnded { return result }
        }
    }

    /// The run's events as they come, oldest first, from after event `after`; the sequence ends once
    /// the run has ended and its last events were given.
    public func events(of id: String, after: Int = 0) -> AsyncThrowingStream<RunEvent, Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var last = after
                    while true {
                        let page = try await send("GET", "/runs/\(id)/events?after=\(last)&limit=1000&wait=25s")
                        let events = (page["events"]?.arrayValue ?? []).compactMap(RunEvent.init)
                        for event in events { continuation.yield(event) }
                        last = events.last?.id ?? last
                        let status = page["run_status"]?.stringValue.flatMap(RunStatus.init(rawValue:))
                        if events.isEmpty, status?.isTerminal == true { break }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Asks the coordinators to cancel the run (`baton cancel`); true once it was applied within `wait` seconds.
    @discardableResult
    public func cancel(_ id: String, reason: String? = nil, wait: Double = 10) async throws -> Bool {
        let body: JSON = reason.map { ["reason": .string($0)] } ?? [:]
        return try await send("POST", "/runs/\(id)/cancel?wait=\(Self.seconds(wait))", body: body)["applied"] == true
    }

    /// Asks the coordinators to run the run's failed and cancelled nodes again (`baton retry`; `from`
    /// a node: that node and all after it); true once it was applied within `wait` seconds.
    @discardableResult
    public func retry(_ id: String, from node: String? = nil, wait: Double = 10) async throws -> Bool {
        let body: JSON = node.map { ["from": .string($0)] } ?? [:]
        return try await send("POST", "/runs/\(id)/retry?wait=\(Self.seconds(wait))", body: body)["applied"] == true
    }

    /// Sends `value` to the run's signal node `node` (`baton signal`); true once it was applied within `wait` seconds.
    @discardableResult
    public func signal(_ id: String, node: String, value: JSON, wait: Double = 10) async throws -> Bool {
        try await send("POST", "/runs/\(id)/signals?wait=\(Self.seconds(wait))", body: ["node": .string(node), "value": value])["applied"] == true
    }

    /// Any operation of the API (`path` under `/api/v1`, with its query): the answer's JSON, or its
    /// error thrown as a `BatonClientError`.
    public func send(_ method: String, _ path: String, body: JSON? = nil, headers: [String: String] = [:]) async throws -> JSON {
        guard let url = URL(string: server.absoluteString.trimmingSuffix("/") + "/api/v1" + path) else {
            throw BatonClientError(status: 0, code: "transport", message: "'\(path)' does not make a URL with \(server)")
        }
        var request = URLRequest(url: url, timeoutInterval: 90)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.serialized().utf8)
        }
        let data: Data
        let response: URLResponse
        do { (data, response) = try await session.data(for: request) } catch {
            throw BatonClientError(status: 0, code: "transport", message: "\(method) \(url): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = try? JSONParser.parse([UInt8](data))
        guard (200..<300).contains(status) else {
            let error = json?["error"]
            throw BatonClientError(
                status: status, code: error?["code"]?.stringValue ?? "http_\(status)",
                message: error?["message"]?.stringValue ?? "\(method) \(url) answered \(status)", details: error?["details"]?.arrayValue ?? [],
                retryAfter: (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0) })
        }
        if status == 204 { return .null }
        guard let json else { throw BatonClientError(status: status, code: "bad_answer", message: "\(method) \(url) answered with no JSON") }
        return json
    }

    func run(_ id: String, wait: Double) async throws -> RunResult {
        let answer = try await send("GET", "/runs/\(id)" + (wait > 0 ? "?wait=\(Self.seconds(wait))" : ""))
        return try Self.result(answer, id: answer["run"]?["id"], error: answer["run"]?["error"], status: answer["run"]?["status"])
    }

    static func result(_ answer: JSON, id: JSON?, created: Bool = true, error: JSON? = nil, status: JSON? = nil) throws -> RunResult {
        guard let id = id?.stringValue, let status = (status ?? answer["status"])?.stringValue.flatMap(RunStatus.init(rawValue:)) else {
            throw BatonClientError(
                status: 200, code: "bad_answer", message: "the server's answer has no run id and status: \(answer.serialized().prefix(200))")
        }
        return RunResult(
            id: id, status: status, outputs: answer["outputs"] ?? .null, error: (error ?? answer["error"])?.stringValue, created: created)
    }

    /// `wait=` text: milliseconds, within the server's 0 to 60 s.
    static func seconds(_ seconds: Double) -> String { "\(Int((min(60, max(0, seconds)) * 1000).rounded()))ms" }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
