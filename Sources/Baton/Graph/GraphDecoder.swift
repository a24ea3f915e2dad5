/// Turns a graph file into a validated `Graph`, collecting every problem.
public struct GraphDecoder: Sendable {
    /// Procedures that may be named, or nil to accept any name.
    public var knownProcedures: Set<String>?
    public var limits: GraphLimits

    public init(knownProcedures: Set<String>? = nil, limits: GraphLimits = GraphLimits()) {
        self.knownProcedures = knownProcedures
        self.limits = limits
    }

    /// Fields of the spec that this version does not carry out yet. They are
    /// refused rather than ignored, so no graph silently runs differently.
    static let notYetSupported: Set<String> = ["mutex", "cache", "group", "map"]
    static let nodeFields: Set<String> = [
        "procedure", "input", "after", "pool", "priority", "retry", "timeout", "dependencies", "when", "condition", "on_failure", "repeat",
    ]
    static let defaultsFields: Set<String> = ["pool", "priority", "retry", "timeout", "dependencies", "on_failure"]
    static let graphFields: Set<String> = ["name", "defaults", "nodes", "description", "input"]

    /// Parses and validates graph file bytes (JSON). `input` is the run's input, merged over the
    /// graph's `input` defaults and read by `$input` (see `RunInput`).
    public func decode(_ bytes: [UInt8], input: JSON? = nil, defaultName: String = "unnamed") throws(GraphValidationError) -> Graph {
        if bytes.count > limits.maxGraphBytes {
            throw GraphValidationError(problems: [
                GraphProblem(node: nil, field: "", message: "graph file is \(bytes.count) bytes, more than the limit of \(limits.maxGraphBytes)")
            ])
        }
        let json: JSON
        do {
            json = try JSONParser.parse(bytes, maxDepth: limits.maxDepth)
        } catch {
            throw GraphValidationError(problems: [GraphProblem(node: nil, field: "", message: error.description)])
        }
        return try decode(json, input: input, defaultName: defaultName, measuringInputs: true)
    }

    /// Validates an already-parsed graph document. Sizes of each node's static input are measured only
    /// with `measuringInputs` (a file being submitted, parsed from another format): a stored graph was
    /// measured when it was submitted, under the limits of then.
    public func decode(
        _ json: JSON, input: JSON? = nil, defaultName: String = "unnamed", measuringInputs: Bool = false
    ) throws(GraphValidationError) -> Graph {
        let resolved = RunInput.resolve(json, given: input)
        let graph: Graph
        do {
            graph = try decodeResolved(resolved.document, defaultName: defaultName, measuringInputs: measuringInputs)
        } catch {
            throw GraphValidationError(problems: resolved.combined(with: error.problems))
        }
        if !resolved.problems.isEmpty { throw GraphValidationError(problems: resolved.problems) }
        return graph
    }

    private func decodeResolved(_ json: JSON, defaultName: String, measuringInputs: Bool) throws(GraphValidationError) -> Graph {
        var problems: [GraphProblem] = []
        func problem(_ node: String?, _ field: String, _ message: String) {
            problems.append(GraphProblem(node: node, field: field, message: message))
        }

        guard case let .object(root) = json else {
            throw GraphValidationError(problems: [
                GraphProblem(node: nil, field: "", message: "a graph must be a JSON object, found \(json.kindName)")
            ])
        }
        for key in root.keys where !Self.graphFields.contains(key) {
            problem(nil, key, "unknown field (expected one of: \(Self.graphFields.sorted().joined(separator: ", ")))")
        }

        var name = defaultName
        if let n = root["name"] {
            if case let .string(s) = n, !s.isEmpty {
                name = s
            } else {
                problem(
                    nil, "name", n == "" ? "must be a non-empty string, found an empty string" : "must be a non-empty string, found \(n.kindName)")
            }
        }

        var defaultPool = "default"
        var defaultPriority = 0
        var defaultPolicies = NodePolicies()
        if let defaults = root["defaults"] {
            if case let .object(d) = defaults {
                for key in d.keys {
                    if ["when", "condition", "repeat"].contains(key) {
                        problem(nil, "defaults/\(key)", "must be set per node, not in defaults")
                    } else if Self.notYetSupported.contains(key) {
                        problem(nil, "defaults/\(key)", "is not supported yet by this version of Baton")
                    } else if !Self.defaultsFields.contains(key) {
                        problem(nil, "defaults/\(key)", "unknown field (expected one of: \(Self.defaultsFields.sorted().joined(separator: ", ")))")
                    }
                }
                if let p = d["pool"], let pool = decodePool(p, node: nil, field: "defaults/pool", problem: problem) { defaultPool = pool }
                if let p = d["priority"], let priority = decodePriority(p, node: nil, field: "defaults/priority", problem: problem) {
                    defaultPriority = priority
                }
                defaultPolicies = decodePolicies(d, base: NodePolicies(), node: nil, fieldPrefix: "defaults/", allKeys: [], problem: problem)
            } else {
                problem(nil, "defaults", "must be an object, found \(defaults.kindName)")
            }
        }

        guard let nodesJSON = root["nodes"] else {
            problem(nil, "nodes", "is required")
            throw GraphValidationError(problems: problems)
        }
        guard case let .object(nodeMembers) = nodesJSON else {
            problem(nil, "nodes", "must be an object mapping node keys to nodes, found \(nodesJSON.kindName)")
            throw GraphValidationError(problems: problems)
        }
        if nodeMembers.isEmpty { problem(nil, "nodes", "must have at least one node") }
        if nodeMembers.count > limits.maxNodes {
            problem(nil, "nodes", "has \(nodeMembers.count) nodes, more than the limit of \(limits.maxNodes)")
            throw GraphValidationError(problems: problems)
        }

        let allKeys = Set(nodeMembers.keys)
        var nodes: [String: GraphNode] = [:]
        var order: [String] = []
        for (key, value) in nodeMembers {
            if let why = NodeKey.problem(with: key) { problem(key, "", "invalid node key: \(why)") }
            guard case let .object(fields) = value else {
                problem(key, "", "a node must be an object, found \(value.kindName)")
                continue
            }
            for field in fields.keys {
                if Self.notYetSupported.contains(field) {
                    problem(key, field, "is not supported yet by this version of Baton")
                } else if !Self.nodeFields.contains(field) {
                    problem(key, field, "unknown field (expected one of: \(Self.nodeFields.sorted().joined(separator: ", ")))")
                }
            }
            var procedure = ""
            switch fields["procedure"] {
            case nil: problem(key, "procedure", "is required")
            case let .string(s)? where !s.isEmpty:
                procedure = s
                if let known = knownProcedures, !known.contains(s), s != DelayProcedure.name {  // the coordinator runs baton.delay
                    problem(key, "procedure", "unknown procedure '\(s)' (no worker serves it; see `baton procedures`)")
                }
            case let other?: problem(key, "procedure", "must be a non-empty string, found \(other.kindName)")
            }
            let input = decodeTemplate(fields["input"] ?? .object(JSONObject()), node: key, field: "input", allKeys: allKeys, problem: problem)
            if measuringInputs, let written = fields["input"] {
                // Only the static part can be known now: references count as the objects they are.
                let size = written.serializedBytes().count
                if size > limits.maxInputBytes {
                    problem(key, "input", "is \(size) bytes as written, more than the limit of \(limits.maxInputBytes) (BATON_MAX_INPUT_BYTES)")
                }
            }
            var after: [String] = []
            if let a = fields["after"] {
                if case let .array(items) = a {
                    for (i, item) in items.enumerated() {
                        guard case let .string(dep) = item else {
                            problem(key, "after/\(i)", "must be a node key string, found \(item.kindName)"); continue
                        }
                        if dep == key {
                            problem(key, "after/\(i)", "a node cannot come after itself")
                        } else if !allKeys.contains(dep) {
                            problem(key, "after/\(i)", "refers to missing node '\(dep)'")
                        } else {
                            after.append(dep)
                        }
                    }
                } else {
                    problem(key, "after", "must be an array of node keys, found \(a.kindName)")
                }
            }
            var pool = defaultPool
            if let p = fields["pool"], let decoded = decodePool(p, node: key, field: "pool", problem: problem) { pool = decoded }
            var priority = defaultPriority
            if let p = fields["priority"], let decoded = decodePriority(p, node: key, field: "priority", problem: problem) { priority = decoded }
            let policies = decodePolicies(fields, base: defaultPolicies, node: key, fieldPrefix: "", allKeys: allKeys, problem: problem)
            if procedure == DelayProcedure.name { checkDelayInput(input, node: key, problem: problem) }
            nodes[key] = GraphNode(key: key, procedure: procedure, input: input, after: after, pool: pool, priority: priority, policies: policies)
            order.append(key)
        }

        if let cycle = findCycle(order: order, nodes: nodes) {
            problem(cycle[0], "", "dependency cycle: \(cycle.joined(separator: " -> "))")
        }
        if !problems.isEmpty { throw GraphValidationError(problems: problems) }
        return Graph(name: name, order: order, nodes: nodes, source: json)
    }

    private func decodePool(_ value: JSON, node: String?, field: String, problem: (String?, String, String) -> Void) -> String? {
        guard case let .string(s) = value else { problem(node, field, "must be a string, found \(value.kindName)"); return nil }
        if let why = NodeKey.problem(with: s) { problem(node, field, "invalid pool name '\(s)': \(why)"); return nil }
        return s
    }

    private func decodePriority(_ value: JSON, node: String?, field: String, problem: (String?, String, String) -> Void) -> Int? {
        guard let i = value.intValue, (0...9).contains(i) else {
            problem(node, field, "must be an integer from 0 to 9, found \(value)")
            return nil
        }
        return i
    }

    func decodeTemplate(_ json: JSON, node: String, field: String, allKeys: Set<String>, problem: (String?, String, String) -> Void) -> Template {
        switch json {
        case let .array(items):
            let templates = items.enumerated().map { decodeTemplate($1, node: node, field: "\(field)/\($0)", allKeys: allKeys, problem: problem) }
            if templates.allSatisfy({
                if case .literal = $0 { return true }; return false
            }) {
                return .literal(json)
            }
            return .array(templates)
        case let .object(members):
            if let from = members["$from"] {
                for key in members.keys where key != "$from" && key != "select" {
                    problem(node, "\(field)/\(key)", "unknown field in a reference (a reference has only '$from' and 'select')")
                }
                guard case let .string(target) = from else {
                    problem(node, "\(field)/$from", "must be a node key string, found \(from.kindName)")
                    return .literal(.null)
                }
                if target == node {
                    problem(node, "\(field)/$from", "a node cannot refer to its own output")
                } else if !allKeys.contains(target) {
                    problem(node, "\(field)/$from", "refers to missing node '\(target)'")
                }
                var pointer = JSONPointer(tokens: [])
                if let select = members["select"] {
                    if case let .string(text) = select {
                        do { pointer = try JSONPointer(parsing: text) } catch {
                            problem(node, "\(field)/select", "invalid JSON pointer '\(text)': \(error.reason)")
                        }
                    } else {
                        problem(node, "\(field)/select", "must be a JSON pointer string such as \"/items/0\", found \(select.kindName)")
                    }
                }
                return .reference(Reference(node: target, select: pointer))
            }
            let templates = members.members.map {
                TemplateMember(
                    key: $0.key,
                    value: decodeTemplate($0.value, node: node, field: "\(field)/\(escapeField($0.key))", allKeys: allKeys, problem: problem))
            }
            if templates.allSatisfy({
                if case .literal = $0.value { return true }; return false
            }) {
                return .literal(json)
            }
            return .object(templates)
        default:
            return .literal(json)
        }
    }

    private func escapeField(_ key: String) -> String { JSONPointer(tokens: [key]).description.dropFirst().description }

    /// A cycle as a path of keys that starts and ends at the same node, if there is one.
    private func findCycle(order: [String], nodes: [String: GraphNode]) -> [String]? {
        enum Mark { case visiting, done }
        var marks: [String: Mark] = [:]
        var stack: [String] = []
        // Iterative depth-first search, so deep chains cannot overflow the stack.
        for start in order where marks[start] == nil {
            var work: [(key: String, next: Int)] = [(start, 0)]
            marks[start] = .visiting
            stack.append(start)
            while var top = work.popLast() {
                let deps = nodes[top.key]!.dependencies
                if top.next < deps.count {
                    let dep = deps[top.next]
                    top.next += 1
                    work.append(top)
                    if nodes[dep] == nil || dep == top.key { continue }  // missing nodes and self references are reported on their own
                    switch marks[dep] {
                    case .visiting?:
                        let from = stack.firstIndex(of: dep)!
                        return Array(stack[from...]) + [dep]
                    case .done?: continue
                    case nil:
                        marks[dep] = .visiting
                        stack.append(dep)
                        work.append((dep, 0))
                    }
                } else {
                    marks[top.key] = .done
                    stack.removeLast()
                }
            }
        }
        return nil
    }
}
