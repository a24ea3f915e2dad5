/// Turns a graph file into a validated `Graph`, collecting every problem.
public struct GraphDecoder: Sendable {
    /// Procedures that may be named (routed names: `acme.greet`, `acme.greet@2`), or nil to accept any
    /// name. A graph may write each plain name and each `name@N` of them (`ProcedureName.writable`).
    public var knownProcedures: Set<String>? {
        get { known }
        set {
            known = newValue
            writableKnown = newValue.map(ProcedureName.writable)
        }
    }
    private var known: Set<String>?
    private var writableKnown: Set<String>?
    public var limits: GraphLimits
    /// What an unknown procedure's problem adds: where the known ones come from.
    public var unknownProcedureHint = "no worker serves it; see `baton procedures`"
    /// The versions live workers serve, which an unpinned node is planned on (`ServedVersions.newest`);
    /// nil plans every unpinned node on version 1 (a spawned fragment, a file checked offline).
    public var servedVersions: ServedVersions?

    public init(knownProcedures: Set<String>? = nil, limits: GraphLimits = GraphLimits()) {
        self.known = knownProcedures
        self.writableKnown = knownProcedures.map(ProcedureName.writable)
        self.limits = limits
    }

    static let nodeFields: Set<String> = [
        "procedure", "group", "map", "input", "after", "pool", "priority", "retry", "timeout", "dependencies", "when", "condition", "on_failure",
        "repeat", "mutex", "concurrency", "cache", "rate", "signal", "fair",
    ]
    static let defaultsFields: Set<String> = ["pool", "priority", "retry", "timeout", "dependencies", "on_failure", "mutex", "cache", "fair"]
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
            let near = NearestName.suggestion(for: key, among: Self.graphFields).map { "did you mean '\($0)'? " } ?? ""
            problem(nil, key, "unknown field (\(near)expected one of: \(Self.graphFields.sorted().joined(separator: ", ")))")
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

        var context = NodeDefaults(pool: "default", priority: 0, policies: NodePolicies())
        if let defaults = root["defaults"] { decodeDefaults(defaults, into: &context, problem: problem) }

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

        let scope = NodeScope().entering(prefix: "", keys: Set(nodeMembers.keys))
        let (order, nodes) = decodeNodes(nodeMembers, scope: scope, defaults: context, measuringInputs: measuringInputs, problem: problem)
        let graph = Graph(name: name, order: order, nodes: nodes, source: json)
        let total = graph.staticNodes.count
        if nodeMembers.count <= limits.maxNodes, total > limits.maxNodes {
            problem(nil, "nodes", "has \(total) nodes counting those in groups, more than the limit of \(limits.maxNodes)")
        }
        if !problems.isEmpty { throw GraphValidationError(problems: problems) }
        return graph
    }

    /// Validates a sub-graph that a running procedure returned for `parent` (`{"nodes": {...}, "output": TEMPLATE}`,
    /// optionally with `defaults`), exactly like a submitted graph; its keys are `parent/child`. Its
    /// references name its own nodes only.
    public func decodeFragment(_ json: JSON, parent: String, pool: String = "default") throws(GraphValidationError) -> GroupSpec {
        var problems: [GraphProblem] = []
        func problem(_ node: String?, _ field: String, _ message: String) {
            problems.append(GraphProblem(node: node, field: field, message: message))
        }
        guard case let .object(root) = json else {
            throw GraphValidationError(problems: [
                GraphProblem(node: nil, field: "", message: "a spawned graph must be a JSON object, found \(json.kindName)")
            ])
        }
        for key in root.keys where !["nodes", "output", "defaults"].contains(key) {
            problem(nil, key, "unknown field (expected one of: defaults, nodes, output)")
        }
        var defaults = NodeDefaults(pool: pool, priority: 0, policies: NodePolicies())
        if let d = root["defaults"] { decodeDefaults(d, into: &defaults, problem: problem) }
        guard case let .object(members)? = root["nodes"], !members.isEmpty else {
            problem(nil, "nodes", "is required: an object mapping node keys to nodes, with at least one node")
            throw GraphValidationError(problems: problems)
        }
        if parent.split(separator: "/").count + 1 > limits.maxDepth {
            problem(nil, "nodes", "would nest \(parent.split(separator: "/").count + 1) levels deep, more than the limit of \(limits.maxDepth)")
            throw GraphValidationError(problems: problems)
        }
        let scope = NodeScope().entering(prefix: parent + "/", keys: Set(members.keys))
        let (order, nodes) = decodeNodes(members, scope: scope, defaults: defaults, measuringInputs: true, problem: problem)
        let output = root["output"].map { decodeTemplate($0, node: parent, field: "output", scope: scope, problem: problem) }
        if !problems.isEmpty { throw GraphValidationError(problems: problems) }
        return GroupSpec(order: order, nodes: nodes, output: output)
    }

    /// Pool, priority and policies that nodes start from.
    struct NodeDefaults {
        var pool: String
        var priority: Int
        var policies: NodePolicies
    }

    func decodeDefaults(_ defaults: JSON, into context: inout NodeDefaults, problem: @escaping (String?, String, String) -> Void) {
        guard case let .object(d) = defaults else {
            problem(nil, "defaults", "must be an object, found \(defaults.kindName)")
            return
        }
        for key in d.keys {
            if ["when", "condition", "repeat", "rate"].contains(key) {
                problem(nil, "defaults/\(key)", "must be set per node, not in defaults")
            } else if !Self.defaultsFields.contains(key) {
                problem(nil, "defaults/\(key)", "unknown field (expected one of: \(Self.defaultsFields.sorted().joined(separator: ", ")))")
            }
        }
        if let p = d["pool"], let pool = decodePool(p, node: nil, field: "defaults/pool", problem: problem) { context.pool = pool }
        if let p = d["priority"], let priority = decodePriority(p, node: nil, field: "defaults/priority", problem: problem) {
            context.priority = priority
        }
        context.policies = decodePolicies(d, base: context.policies, node: nil, fieldPrefix: "defaults/", scope: NodeScope(), problem: problem)
    }

    /// The nodes of one level (the graph, a group, or a spawned fragment), with their keys made absolute.
    func decodeNodes(
        _ members: JSONObject, scope: NodeScope, defaults: NodeDefaults, measuringInputs: Bool,
        problem: @escaping (String?, String, String) -> Void
    ) -> (order: [String], nodes: [String: GraphNode]) {
        var nodes: [String: GraphNode] = [:]
        var order: [String] = []
        nodes.reserveCapacity(members.count)
        order.reserveCapacity(members.count)
        for (local, value) in members {
            let key = scope.prefix + local
            if let why = NodeKey.problem(with: local) { problem(key, "", "invalid node key: \(why)") }
            guard case let .object(fields) = value else {
                problem(key, "", "a node must be an object, found \(value.kindName)")
                continue
            }
            if let node = decodeNode(key, fields, scope: scope, defaults: defaults, measuringInputs: measuringInputs, problem: problem) {
                nodes[key] = node
                order.append(key)
            }
        }
        if let cycle = findCycle(order: order, nodes: nodes) {
            problem(cycle[0], "", "dependency cycle: \(cycle.joined(separator: " -> "))")
        }
        return (order, nodes)
    }

    private func decodeNode(
        _ key: String, _ fields: JSONObject, scope: NodeScope, defaults: NodeDefaults, measuringInputs: Bool,
        problem: @escaping (String?, String, String) -> Void
    ) -> GraphNode? {
        let kinds = ["procedure", "group", "map", "signal"].filter { fields[$0] != nil }
        if kinds.count > 1 {
            problem(key, kinds[1], "a node has one of procedure, group, map and signal, not both \(kinds[0]) and \(kinds[1])")
        }
        let kindName = kinds.first ?? "procedure"
        for field in fields.keys {
            if !Self.nodeFields.contains(field) {
                let near = NearestName.suggestion(for: field, among: Self.nodeFields).map { "did you mean '\($0)'? " } ?? ""
                problem(key, field, "unknown field (\(near)expected one of: \(Self.nodeFields.sorted().joined(separator: ", ")))")
            } else if kindName == "signal" {
                if !Self.signalFields.contains(field) { problem(key, field, Self.signalFieldProblem(field)) }
            } else if kindName != "procedure", ["input", "repeat"].contains(field) {
                let instead = kindName == "map" ? " (each child's input is map/input)" : ""
                problem(key, field, "a \(kindName) node has no \(field)\(instead)")
            }
        }
        var after: [String] = []
        if let a = fields["after"] {
            if case let .array(items) = a {
                for (i, item) in items.enumerated() {
                    guard case let .string(dep) = item else {
                        problem(key, "after/\(i)", "must be a node key string, found \(item.kindName)"); continue
                    }
                    switch scope.resolve(dep, from: key) {
                    case let .success(target): after.append(target)
                    case let .failure(why): problem(key, "after/\(i)", why.message(verb: "come after"))
                    }
                }
            } else {
                problem(key, "after", "must be an array of node keys, found \(a.kindName)")
            }
        }
        var pool = defaults.pool
        if let p = fields["pool"], let decoded = decodePool(p, node: key, field: "pool", problem: problem) { pool = decoded }
        var priority = defaults.priority
        if let p = fields["priority"], let decoded = decodePriority(p, node: key, field: "priority", problem: problem) { priority = decoded }
        var policies = decodePolicies(fields, base: defaults.policies, node: key, fieldPrefix: "", scope: scope, problem: problem)
        checkAdmission(&policies, own: fields, kind: kindName, procedure: fields["procedure"]?.stringValue ?? "", node: key, problem: problem)
        switch kindName {
        case "group":
            guard
                let spec = decodeGroup(
                    fields["group"]!, key: key, scope: scope, defaults: NodeDefaults(pool: pool, priority: priority, policies: defaults.policies),
                    measuringInputs: measuringInputs, problem: problem)
            else { return nil }
            planCondition(&policies, pool: pool)
            return GraphNode(
                key: key, procedure: GroupSpec.procedureName, input: .literal(.object(JSONObject())), after: after, pool: pool, priority: priority,
                policies: policies, kind: .group(spec), outside: Self.references(leaving: key, in: spec))
        case "signal":
            guard let spec = decodeSignal(fields["signal"]!, node: key, problem: problem) else { return nil }
            return GraphNode(
                key: key, procedure: SignalSpec.procedureName, input: .literal(.object(JSONObject())), after: after, pool: pool,
                priority: priority, policies: policies, kind: .signal(spec))
        case "map":
            guard let (procedure, spec) = decodeMap(fields["map"]!, key: key, scope: scope, defaultFair: defaults.policies.fair, problem: problem)
            else { return nil }
            planCondition(&policies, pool: pool)
            return GraphNode(
                key: key, procedure: planned(procedure, pool: pool), input: .literal(.object(JSONObject())), after: after, pool: pool,
                priority: priority,
                policies: policies, kind: .map(spec))
        default:
            var procedure = ""
            switch fields["procedure"] {
            case nil: problem(key, "procedure", "is required (or group, map or signal)")
            case let .string(s)? where !s.isEmpty:
                procedure = s
                checkKnown(s, node: key, field: "procedure", problem: problem)
            case let other?: problem(key, "procedure", "must be a non-empty string, found \(other.kindName)")
            }
            let input = decodeTemplate(fields["input"] ?? .object(JSONObject()), node: key, field: "input", scope: scope, problem: problem)
            if measuringInputs, let written = fields["input"] {
                // Only the static part can be known now: references count as the objects they are.
                let size = written.serializedBytes().count
                if size > limits.maxInputBytes {
                    problem(key, "input", "is \(size) bytes as written, more than the limit of \(limits.maxInputBytes) (BATON_MAX_INPUT_BYTES)")
                }
            }
            if procedure == DelayProcedure.name { checkDelayInput(input, node: key, problem: problem) }
            planCondition(&policies, pool: pool)
            return GraphNode(
                key: key, procedure: planned(procedure, pool: pool), input: input, after: after, pool: pool, priority: priority, policies: policies)
        }
    }

    func checkKnown(_ procedure: String, node: String, field: String, problem: (String?, String, String) -> Void) {
        if procedure == SignalSpec.procedureName {  // no worker runs it: only a signal node's row shows the name
            problem(node, field, "baton.signal is not a procedure; a node that waits for a signal is written {\"signal\": \"NAME\"}")
            return
        }
        guard let name = ProcedureName(parsing: procedure) else {
            problem(node, field, ProcedureName.badPin(procedure))
            return
        }
        if name.pinned, name.base == DelayProcedure.name || name.base == SignalSpec.procedureName {
            problem(node, field, "\(name.base) has no versions: write it without @\(name.version)")
            return
        }
        if name.pinned, let known = writableKnown, !known.contains("\(name.base)@\(name.version)"), known.contains(name.base) {
            let served = known.compactMap { ProcedureName(parsing: $0) }.filter { $0.pinned && $0.base == name.base }.map(\.version).sorted()
            problem(
                node, field,
                "version \(name.version) of procedure '\(name.base)' is not served (live workers serve "
                    + served.map { "\(name.base)@\($0)" }.joined(separator: ", ") + "; or pass --allow-unknown-procedures)")
            return
        }
        let written = name.pinned ? "\(name.base)@\(name.version)" : name.base
        if let known = writableKnown, !known.contains(written), procedure != DelayProcedure.name {  // the coordinator runs baton.delay
            let near = NearestName.suggestion(for: procedure, among: knownProcedures ?? []).map { "did you mean '\($0)'? " } ?? ""
            problem(node, field, "unknown procedure '\(procedure)' (\(near)\(unknownProcedureHint))")
        }
    }

    /// The routed name a node of `pool` runs `written` as: a pin's version, else the newest version
    /// served (`servedVersions`), else 1. A bad pin is a problem `checkKnown` reported; it stays as written.
    func planned(_ written: String, pool: String) -> String {
        guard let name = ProcedureName(parsing: written) else { return written }
        if name.pinned { return name.routed }
        guard let servedVersions, name.base != DelayProcedure.name else { return written }
        return ProcedureName.routed(name.base, version: servedVersions.newest(name.base, pool: pool))
    }

    /// A node's condition procedure planned as the node's own (`planned`).
    func planCondition(_ policies: inout NodePolicies, pool: String) {
        guard let c = policies.condition else { return }
        let procedure = planned(c.procedure, pool: pool)
        if procedure != c.procedure { policies.condition = ConditionSpec(procedure: procedure, input: c.input, negate: c.negate) }
    }

    /// The nodes outside group `key` that its children (at any depth) and its output template wait for.
    static func references(leaving key: String, in spec: GroupSpec) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        func add(_ dependency: String) {
            if !NodeScope.isWithin(dependency, key) && seen.insert(dependency).inserted { result.append(dependency) }
        }
        func visit(_ spec: GroupSpec) {
            for child in spec.order {
                let node = spec.nodes[child]!
                node.dependencies.forEach(add)
                if case let .group(inner) = node.kind { visit(inner) }
            }
            for reference in spec.output?.references ?? [] { add(reference.node) }
        }
        visit(spec)
        return result
    }

    func decodePool(_ value: JSON, node: String?, field: String, problem: (String?, String, String) -> Void) -> String? {
        guard case let .string(s) = value else { problem(node, field, "must be a string, found \(value.kindName)"); return nil }
        if let why = NodeKey.problem(with: s) { problem(node, field, "invalid pool name '\(s)': \(why)"); return nil }
        return s
    }

    func decodePriority(_ value: JSON, node: String?, field: String, problem: (String?, String, String) -> Void) -> Int? {
        guard let i = value.intValue, (0...9).contains(i) else {
            problem(node, field, "must be an integer from 0 to 9, found \(value)")
            return nil
        }
        return i
    }

    /// A template as written: `$from` references are resolved in `scope` to absolute keys; `$item` and
    /// `$index` are allowed only where `items` is true (a map's child input).
    func decodeTemplate(
        _ json: JSON, node: String, field: String, scope: NodeScope, items: Bool = false, problem: (String?, String, String) -> Void
    ) -> Template {
        switch json {
        case let .array(entries):
            let templates = entries.enumerated().map {
                decodeTemplate($1, node: node, field: "\(field)/\($0)", scope: scope, items: items, problem: problem)
            }
            if templates.allSatisfy(\.isLiteral) {
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
                var resolved = target
                switch scope.resolve(target, from: node) {
                case let .success(key): resolved = key
                case let .failure(why): problem(node, "\(field)/$from", why.message(verb: "refer to"))
                }
                return .reference(
                    Reference(node: resolved, select: decodePointer(members["select"], node: node, field: "\(field)/select", problem: problem)))
            }
            if let item = members["$item"] {
                if !items { problem(node, "\(field)/$item", "$item is only meaningful in a map's input") }
                for key in members.keys where key != "$item" {
                    problem(node, "\(field)/\(key)", "unknown field in an $item reference (it has only '$item')")
                }
                guard case .string = item else {
                    problem(node, "\(field)/$item", "must be a JSON pointer string (\"\" for the whole element), found \(item.kindName)")
                    return .literal(.null)
                }
                return .item(decodePointer(item, node: node, field: "\(field)/$item", problem: problem))
            }
            if let index = members["$index"] {
                if !items { problem(node, "\(field)/$index", "$index is only meaningful in a map's input") }
                if index != true || members.count > 1 { problem(node, "\(field)/$index", "must be written {\"$index\": true}") }
                return .index
            }
            let templates = members.members.map {
                TemplateMember(
                    key: $0.key,
                    value: decodeTemplate(
                        $0.value, node: node, field: "\(field)/\(escapeField($0.key))", scope: scope, items: items, problem: problem))
            }
            if templates.allSatisfy(\.value.isLiteral) {
                return .literal(json)
            }
            return .object(templates)
        default:
            return .literal(json)
        }
    }

    private func decodePointer(_ json: JSON?, node: String, field: String, problem: (String?, String, String) -> Void) -> JSONPointer {
        guard let json else { return JSONPointer(tokens: []) }
        guard case let .string(text) = json else {
            problem(node, field, "must be a JSON pointer string such as \"/items/0\", found \(json.kindName)")
            return JSONPointer(tokens: [])
        }
        do { return try JSONPointer(parsing: text) } catch {
            problem(node, field, "invalid JSON pointer '\(text)': \(error.reason)")
            return JSONPointer(tokens: [])
        }
    }

    private func escapeField(_ key: String) -> String { JSONPointer(tokens: [key]).description.dropFirst().description }

    /// A cycle as a path of keys that starts and ends at the same node, if there is one.
    private func findCycle(order: [String], nodes: [String: GraphNode]) -> [String]? {
        enum Mark { case visiting, done }
        var marks: [String: Mark] = [:]
        marks.reserveCapacity(order.count)
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
