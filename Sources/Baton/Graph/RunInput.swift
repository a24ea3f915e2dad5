/// A graph document with its run input applied: the defaults the graph declares under `input`,
/// merged with what the run is given, and every `{"$input": POINTER}` replaced by the value it names.
///
/// This is a pass over the document before `GraphDecoder` validates it, so `$input` may stand
/// anywhere in the graph (node inputs, `when`, `condition`, policies, nested `nodes`) except in the
/// top-level `input` itself, which is data. The value is placed as if it had been written there and is
/// then validated like the rest of the document. In the resolved document, `input` holds the merged input.
public struct RunInput: Sendable {
    /// The document with every `$input` replaced (failed ones are left as written).
    public let document: JSON
    /// The merged run input: the graph's defaults with the given input merged over them.
    public let value: JSON
    /// What was wrong with the run input or a `$input` reference; empty if nothing.
    public let problems: [GraphProblem]
    /// Where a `$input` could not be replaced: the decoder's own problems at or under these places are noise.
    let failures: [(node: String?, field: String)]
    /// Where a `$input` was replaced, by node (`""` for the graph's own fields), so the decoder's problems there can say so.
    let replaced: [String: [(field: String, pointer: String)]]

    /// Applies `given` (the run's input, or nil for the defaults alone) to `document`.
    public static func resolve(_ document: JSON, given: JSON? = nil) -> RunInput {
        var walker = Walker()
        guard case let .object(root) = document else {
            return RunInput(document: document, value: .object(JSONObject()), problems: [], failures: [], replaced: [:])
        }
        var defaults = JSON.object(JSONObject())
        if let declared = root["input"] {
            if case .object = declared {
                defaults = declared
            } else {
                walker.problem(nil, "input", "must be an object of default values, found \(declared.kindName)")
            }
        }
        var merged = defaults
        if let given {
            if case .object = given {
                merged = merge(defaults, given)
            } else {
                walker.problem(nil, "input", "the run input must be an object, found \(given.kindName)")
            }
        }
        walker.input = merged
        var members: [(key: String, value: JSON)] = []
        members.reserveCapacity(root.count)
        for (key, value) in root {
            switch key {
            case "input": members.append((key, merged))
            case "nodes": members.append((key, walker.nodes(value, prefix: "", path: [key]) ?? value))
            default: members.append((key, walker.walk(value, node: nil, path: [key]) ?? value))
            }
        }
        // Only a graph that declares an input, or a run given a non-empty one, gets the member.
        if root["input"] == nil, let given = given?.objectValue, !given.isEmpty { members.append(("input", merged)) }
        return RunInput(
            document: .object(JSONObject(members)), value: merged, problems: walker.problems, failures: walker.failures,
            replaced: walker.replaced)
    }

    /// Merges `given` over `defaults`: two objects merge member by member (recursively, keeping the
    /// defaults' order and adding new members at the end); anything else in `given` replaces.
    public static func merge(_ defaults: JSON, _ given: JSON) -> JSON {
        guard case var .object(result) = defaults, case let .object(over) = given else { return given }
        for (key, value) in over {
            result[key] = result[key].map { merge($0, value) } ?? value
        }
        return .object(result)
    }

    /// The decoder's problems, less those caused by a `$input` that failed, after the run input's own.
    /// A problem in a value that a `$input` placed says which pointer it came from.
    func combined(with decoderProblems: [GraphProblem]) -> [GraphProblem] {
        func within(_ field: String, _ place: String) -> Bool { place.isEmpty || field == place || field.hasPrefix(place + "/") }
        // A failure in place of the whole `nodes` leaves nothing the decoder says about nodes reliable.
        if failures.contains(where: { $0.node == nil && within($0.field, "nodes") }) { return problems }
        let kept = decoderProblems.filter { p in !failures.contains { f in f.node == p.node && within(p.field, f.field) } }
        return problems
            + kept.map { p in
                guard let source = replaced[p.node ?? ""]?.last(where: { within(p.field, $0.field) }) else { return p }
                return GraphProblem(node: p.node, field: p.field, message: p.message + " (the value of $input '\(source.pointer)')")
            }
    }
}

/// The walk over the document; each function returns nil when nothing under the value changed.
private struct Walker {
    var input: JSON = .object(JSONObject())
    var problems: [GraphProblem] = []
    var failures: [(node: String?, field: String)] = []
    var replaced: [String: [(field: String, pointer: String)]] = [:]

    mutating func problem(_ node: String?, _ field: String, _ message: String) {
        problems.append(GraphProblem(node: node, field: field, message: message))
    }

    /// An object mapping node keys to nodes; `prefix` names the enclosing group (`group/`).
    mutating func nodes(_ value: JSON, prefix: String, path: [String]) -> JSON? {
        guard case let .object(members) = value, members["$input"] == nil else {
            return walk(value, node: prefix.isEmpty ? nil : String(prefix.dropLast()), path: path)
        }
        return rebuild(members) { walker, key, child in walker.node(child, name: prefix + key) }
    }

    /// One node document: its fields are named by the node, the nodes of its `group` by `node/child`.
    mutating func node(_ value: JSON, name: String) -> JSON? {
        guard case let .object(members) = value, members["$input"] == nil else { return walk(value, node: name, path: []) }
        return rebuild(members) { walker, key, field in
            switch key {
            case "group": return walker.group(field, name: name)
            case "nodes": return walker.nodes(field, prefix: name + "/", path: [key])  // a group written without `group`
            default: return walker.walk(field, node: name, path: [key])
            }
        }
    }

    /// A node's `group` (`{"nodes": {...}, "output": TEMPLATE}`): its children are nodes of their own.
    mutating func group(_ value: JSON, name: String) -> JSON? {
        guard case let .object(members) = value, members["$input"] == nil else { return walk(value, node: name, path: ["group"]) }
        return rebuild(members) { walker, key, field in
            key == "nodes"
                ? walker.nodes(field, prefix: name + "/", path: ["group", key]) : walker.walk(field, node: name, path: ["group", key])
        }
    }

    mutating func walk(_ value: JSON, node: String?, path: [String]) -> JSON? {
        switch value {
        case let .array(items):
            var out: [JSON]? = nil
            for (i, item) in items.enumerated() {
                if let changed = walk(item, node: node, path: path + [String(i)]) {
                    if out == nil { out = items }
                    out![i] = changed
                }
            }
            return out.map { .array($0) }
        case let .object(members):
            if let pointer = members["$input"] { return substitute(members, pointer: pointer, node: node, path: path) }
            return rebuild(members) { walker, key, member in walker.walk(member, node: node, path: path + [key]) }
        default:
            return nil
        }
    }

    /// By position, not through JSONObject's subscript, which searches: a graph may have 100,000 nodes.
    private mutating func rebuild(_ members: JSONObject, _ child: (inout Walker, String, JSON) -> JSON?) -> JSON? {
        var out: [(key: String, value: JSON)]? = nil
        for (i, member) in members.members.enumerated() {
            if let changed = child(&self, member.key, member.value) {
                if out == nil { out = members.members }
                out![i].value = changed
            }
        }
        return out.map { .object(JSONObject($0)) }
    }

    private mutating func substitute(_ members: JSONObject, pointer: JSON, node: String?, path: [String]) -> JSON? {
        let field = Self.field(path)
        func fail(_ at: String, _ message: String) -> JSON? {
            problem(node, at, message)
            failures.append((node, field))
            return nil
        }
        let others = members.keys.filter { $0 != "$input" }
        if !others.isEmpty {
            let names = others.map { "'\($0)'" }.joined(separator: ", ")
            return fail(field, "a $input reference has only the member '$input', found also \(names)")
        }
        let pointerField = Self.field(path + ["$input"])
        guard case let .string(text) = pointer else {
            return fail(pointerField, "must be a JSON pointer string such as \"/width\" (\"\" for the whole input), found \(pointer.kindName)")
        }
        let parsed: JSONPointer
        do { parsed = try JSONPointer(parsing: text) } catch { return fail(pointerField, "invalid JSON pointer '\(text)': \(error.reason)") }
        guard let found = try? parsed.resolve(in: input) else {
            return fail(field, "$input pointer '\(text)' has no value in the run input")
        }
        if Self.containsInputReference(found) {
            return fail(field, "$input pointer '\(text)' names a value that holds a $input object itself; a run input is data")
        }
        replaced[node ?? "", default: []].append((field, text))
        return found
    }

    private static func containsInputReference(_ value: JSON) -> Bool {
        switch value {
        case let .array(items): return items.contains(where: containsInputReference)
        case let .object(members): return members["$input"] != nil || members.contains { containsInputReference($0.value) }
        default: return false
        }
    }

    /// A field path as the decoder writes it: pointer-escaped tokens joined by `/`.
    private static func field(_ path: [String]) -> String { String(JSONPointer(tokens: path).description.dropFirst()) }
}
