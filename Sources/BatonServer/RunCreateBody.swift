import Baton
import BatonYAML
import Hummingbird

/// The body of `POST /api/v1/runs`: `{"graph": GRAPH, "input": {...}, "name": "...",
/// "allow_unknown_procedures": false, "type_check": true}`, GRAPH a graph document as a JSON object,
/// or a JSON or YAML text as a string. Checked strictly: an unknown member is refused.
struct RunCreateBody: Sendable {
    var graph: JSON
    var input: JSON?
    var name: String?
    var allowUnknownProcedures = false
    var typeCheck = true

    static let members: Set<String> = ["graph", "input", "name", "allow_unknown_procedures", "type_check"]
    /// The members of `POST /api/v1/validate`'s body: those of a run but its name.
    static let checkMembers = members.subtracting(["name"])

    /// Reads and parses the request's body: JSON only (415 otherwise), at most the graph and input
    /// limits together (413 beyond), a JSON object of `members` (400 or 422 otherwise).
    static func read(_ request: Request, limits: GraphLimits, members: Set<String> = members) async throws -> RunCreateBody {
        let object = try await APIBody.object(request, limit: limits.maxGraphBytes + limits.maxInputBytes + 65_536, allowed: members)
        return try parse(object)
    }

    static func parse(_ bytes: [UInt8], members: Set<String> = members) throws -> RunCreateBody {
        try parse(APIBody.object(bytes, allowed: members))
    }

    private static func parse(_ object: JSONObject) throws -> RunCreateBody {
        guard let graph = object["graph"] else {
            throw APIError.invalid("the body has no `graph` member", details: [["message": "required", "field": "/graph"]])
        }
        guard graph.objectValue != nil || graph.stringValue != nil else {
            throw APIError.invalid("`graph` must be a graph document (an object) or its JSON or YAML text (a string), not \(graph.kindName)")
        }
        var body = RunCreateBody(graph: graph)
        if let input = object["input"], input != .null {
            guard input.objectValue != nil else { throw APIError.invalid("`input` must be an object, not \(input.kindName)") }
            body.input = input
        }
        if let name = object["name"] {
            guard let text = name.stringValue, !text.isEmpty, text.count <= 200 else {
                throw APIError.invalid("`name` must be a string of 1 to 200 characters")
            }
            body.name = text
        }
        for (member, keyPath) in [("allow_unknown_procedures", \RunCreateBody.allowUnknownProcedures), ("type_check", \.typeCheck)] {
            guard let value = object[member] else { continue }
            guard let flag = value.boolValue else { throw APIError.invalid("`\(member)` must be true or false, not \(value.kindName)") }
            body[keyPath: keyPath] = flag
        }
        return body
    }

    /// The graph, checked as `baton submit` checks a file: `knownProcedures` (nil: any), the inputs
    /// against `schemas` (nil: not checked). An invalid graph is a 422 naming every problem, each also a detail.
    func graph(
        limits: GraphLimits, knownProcedures: Set<String>?, schemas: [String: ProcedureSchema]?, servedVersions: ServedVersions? = nil
    ) throws -> Graph {
        var document = graph
        var yaml: YAMLDocument?
        if let text = graph.stringValue {
            let bytes = Array(text.utf8)
            if bytes.count > limits.maxGraphBytes {
                throw APIError.payloadTooLarge("graph: graph text is \(bytes.count) bytes, more than the limit of \(limits.maxGraphBytes)")
            }
            do { yaml = try YAMLDocument.parse(bytes, maxDepth: limits.maxDepth, maxBytes: limits.maxGraphBytes) } catch {
                throw APIError.invalid((error.mark.map { "graph:\($0): " } ?? "graph: ") + error.message)
            }
            document = yaml!.json
        }
        if yaml == nil {
            let size = graph.serialized().utf8.count
            if size > limits.maxGraphBytes {
                throw APIError.payloadTooLarge("graph: graph is \(size) bytes, more than the limit of \(limits.maxGraphBytes)")
            }
        }
        if let name, var object = document.objectValue {
            object["name"] = .string(name)
            document = .object(object)
        }
        var decoder = GraphDecoder(knownProcedures: knownProcedures, limits: limits)
        decoder.unknownProcedureHint = "no live worker serves it; send allow_unknown_procedures: true to submit anyway"
        decoder.servedVersions = servedVersions
        let decoded: Graph
        do { decoded = try decoder.decode(document, input: input, defaultName: "unnamed", measuringInputs: true) } catch {
            throw Self.invalid(error.problems, yaml: yaml)
        }
        if let schemas {
            let problems = TypeChecker(schemas: schemas).check(decoded)
            if !problems.isEmpty { throw Self.invalid(problems, yaml: yaml) }
        }
        return decoded
    }

    /// An invalid graph: the CLI's first line (`graph: invalid graph (N problems)`) and each problem a detail.
    static func invalid(_ problems: [GraphProblem], yaml: YAMLDocument?) -> APIError {
        let n = problems.count
        let lines = GraphFileDecoding.lines(problems, path: "graph", yaml: yaml)
        return APIError.invalid(
            "graph: invalid graph (\(n) problem\(n == 1 ? "" : "s")): " + lines.joined(separator: "; "),
            details: zip(problems, lines).map { problem, line in
                ["message": .string(line), "node": problem.node.map(JSON.string) ?? .null, "field": .string(problem.field)]
            })
    }
}
