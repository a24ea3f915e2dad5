/// Decoding `group` and `map`, the nodes made of other nodes.
extension GraphDecoder {
    static let groupFields: Set<String> = ["nodes", "output"]
    static let mapFields: Set<String> = ["over", "procedure", "input", "concurrency", "failure", "rate", "fair"]

    /// `{"nodes": {...}, "output": TEMPLATE}`: the children are decoded in the group's own scope, with keys `key/child`.
    func decodeGroup(
        _ json: JSON, key: String, scope: NodeScope, defaults: NodeDefaults, measuringInputs: Bool,
        problem: @escaping (String?, String, String) -> Void
    ) -> GroupSpec? {
        guard case let .object(fields) = json else {
            problem(key, "group", "must be an object like {\"nodes\": {...}, \"output\": {...}}, found \(json.kindName)")
            return nil
        }
        for field in fields.keys where !Self.groupFields.contains(field) {
            problem(key, "group/\(field)", "unknown field (expected one of: nodes, output)")
        }
        guard let nodesJSON = fields["nodes"] else {
            problem(key, "group/nodes", "is required: an object mapping child keys to nodes")
            return nil
        }
        guard case let .object(members) = nodesJSON, !members.isEmpty else {
            problem(
                key, "group/nodes",
                "must be an object with at least one node, found \(nodesJSON == .object(JSONObject()) ? "an empty object" : nodesJSON.kindName)")
            return nil
        }
        let depth = key.split(separator: "/").count + 1
        if depth > limits.maxDepth {
            problem(key, "group", "nests groups \(depth) levels deep, more than the limit of \(limits.maxDepth) (BATON_MAX_DEPTH)")
            return nil
        }
        let inner = scope.entering(prefix: key + "/", keys: Set(members.keys))
        let (order, nodes) = decodeNodes(members, scope: inner, defaults: defaults, measuringInputs: measuringInputs, problem: problem)
        let output = fields["output"].map { decodeTemplate($0, node: key, field: "group/output", scope: inner, problem: problem) }
        return GroupSpec(order: order, nodes: nodes, output: output)
    }

    /// `{"over": REFERENCE, "procedure": NAME, "input": TEMPLATE, "concurrency": N, "failure": ...}`; the
    /// children's `fair` is `map/fair`, else `defaultFair` (from `defaults`).
    func decodeMap(
        _ json: JSON, key: String, scope: NodeScope, defaultFair: FairPolicy? = nil, problem: @escaping (String?, String, String) -> Void
    ) -> (String, MapSpec)? {
        guard case let .object(fields) = json else {
            problem(
                key, "map",
                "must be an object like {\"over\": {\"$from\": \"...\"}, \"procedure\": \"...\", \"input\": {...}}, found \(json.kindName)")
            return nil
        }
        for field in fields.keys where !Self.mapFields.contains(field) {
            problem(key, "map/\(field)", "unknown field (expected one of: \(Self.mapFields.sorted().joined(separator: ", ")))")
        }
        var ok = true
        var procedure = ""
        switch fields["procedure"] {
        case nil:
            problem(key, "map/procedure", "is required: the procedure each element runs")
            ok = false
        case let .string(s)? where !s.isEmpty:
            procedure = s
            if s == DelayProcedure.name {
                problem(key, "map/procedure", "baton.delay cannot be mapped; give each element its own delay node")
            } else {
                checkKnown(s, node: key, field: "map/procedure", problem: problem)
            }
        case let other?:
            problem(key, "map/procedure", "must be a non-empty string, found \(other.kindName)")
            ok = false
        }
        var over = Template.literal(.array([]))
        if let o = fields["over"] {
            over = decodeTemplate(o, node: key, field: "map/over", scope: scope, problem: problem)
            if case let .literal(value) = over, value.arrayValue == nil {
                problem(key, "map/over", "must be an array or a $from reference to one, found \(value.kindName)")
            }
        } else {
            problem(key, "map/over", "is required: a $from reference to the array to map over")
            ok = false
        }
        let input = decodeTemplate(
            fields["input"] ?? .object(JSONObject([("$item", "")])), node: key, field: "map/input", scope: scope, items: true, problem: problem)
        var concurrency: Int?
        if let c = fields["concurrency"] {
            if let n = c.intValue, (1...100_000).contains(n) {
                concurrency = n
            } else {
                problem(key, "map/concurrency", "must be an integer from 1 to 100000, found \(c)")
            }
        }
        var failure = MapFailure.failFast
        if let f = fields["failure"] {
            if let s = f.stringValue, let decoded = MapFailure(rawValue: s) {
                failure = decoded
            } else {
                problem(key, "map/failure", "must be \"fail-fast\" or \"collect\", found \(f)")
            }
        }
        let rate = fields["rate"].flatMap { decodeRate($0, node: key, field: "map/rate", scope: scope, items: true, problem: problem) }
        let fair = fields["fair"].flatMap { decodeFair($0, node: key, field: "map/fair", scope: scope, items: true, problem: problem) }
        guard ok else { return nil }
        return (procedure, MapSpec(over: over, input: input, concurrency: concurrency, failure: failure, rate: rate, fair: fair ?? defaultFair))
    }
}
