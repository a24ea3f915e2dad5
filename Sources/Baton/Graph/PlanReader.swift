/// Reads a stored plan (`baton.runs.plan`, versions 1 and 2) from its text, node by node: what `PlanWriter`
/// and `Graph`'s `Codable` conformance write, without Foundation's decoder. A field of the wrong
/// shape throws a `MessageError` naming it by its path in the plan.
struct PlanReader {
    /// The graph a plan's text describes, read node by node: the document is never a `JSON` tree as a
    /// whole, so a 100,000-node plan costs its graph and one node's tree, not several times that.
    static func graph(text: String) throws(MessageError) -> Graph {
        let r = PlanReader()
        do {
            return try JSONParser.stream(text, maxDepth: 1024) { p in
                var version: Int?, name: String?, order: [String]?, nodes: [String: GraphNode]?
                try p.readObject { p, member in
                    switch member {
                    case "v": version = try r.int(p.readValue(depth: 1), "/v")
                    case "name": name = try r.string(p.readValue(depth: 1), "/name")
                    case "order": order = try r.strings(p.readValue(depth: 1), "/order")
                    case "nodes":
                        var result: [String: GraphNode] = [:]
                        result.reserveCapacity(order?.count ?? 0)
                        try p.readObject(depth: 2) { p, key in
                            guard result[key] == nil else { throw MessageError("stored plan is malformed: '/nodes/\(key)' appears twice") }
                            result[key] = try r.node(p.readValue(depth: 2), "/nodes/" + key)
                        }
                        nodes = result
                    default: _ = try p.readValue(depth: 1)
                    }
                }
                guard let version else { throw r.fail("/v", "an integer", nil) }
                guard version == 1 || version == Graph.planVersion else {
                    throw MessageError("stored plan has version \(version), not 1 or \(Graph.planVersion)")
                }
                guard let name else { throw r.fail("/name", "a string", nil) }
                guard let order else { throw r.fail("/order", "an array", nil) }
                guard let nodes else { throw r.fail("/nodes", "an object", nil) }
                return Graph(name: name, order: order, nodes: nodes, source: .null)
            }
        } catch let error as MessageError {
            throw error
        } catch {
            throw MessageError("stored plan is malformed: \(error)")
        }
    }

    private func fail(_ path: String, _ expected: String, _ found: JSON?) -> MessageError {
        let at = path.isEmpty ? "the input" : "'\(path)'"
        guard let found else { return MessageError("stored plan is malformed: \(at): required field is missing") }
        return MessageError("stored plan is malformed: \(at): expected \(expected), found \(found.kindName)")
    }

    private func object(_ json: JSON?, _ path: String) throws(MessageError) -> JSONObject {
        guard case let .object(o)? = json else { throw fail(path, "an object", json) }
        return o
    }

    private func string(_ json: JSON?, _ path: String) throws(MessageError) -> String {
        guard case let .string(s)? = json else { throw fail(path, "a string", json) }
        return s
    }

    private func int(_ json: JSON?, _ path: String) throws(MessageError) -> Int {
        guard let i = json?.intValue else { throw fail(path, "an integer", json) }
        return i
    }

    private func double(_ json: JSON?, _ path: String) throws(MessageError) -> Double {
        guard let d = json?.numberValue else { throw fail(path, "a number", json) }
        return d
    }

    private func bool(_ json: JSON?, _ path: String) throws(MessageError) -> Bool {
        guard case let .bool(b)? = json else { throw fail(path, "a boolean", json) }
        return b
    }

    private func strings(_ json: JSON?, _ path: String) throws(MessageError) -> [String] {
        guard case let .array(items)? = json else { throw fail(path, "an array", json) }
        var result: [String] = []
        result.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard case let .string(s) = item else { throw fail("\(path)/\(i)", "a string", item) }
            result.append(s)
        }
        return result
    }

    /// A present, non-null member, as `decodeIfPresent` reads optionals.
    private func optional(_ o: JSONObject, _ key: String) -> JSON? {
        guard let value = o[key], !value.isNull else { return nil }
        return value
    }

    private func nodes(_ json: JSON?, _ path: String) throws(MessageError) -> [String: GraphNode] {
        let o = try object(json, path)
        var result: [String: GraphNode] = [:]
        result.reserveCapacity(o.count)
        for member in o.members { result[member.key] = try node(member.value, path + "/" + member.key) }
        return result
    }

    private func node(_ json: JSON, _ path: String) throws(MessageError) -> GraphNode {
        let o = try object(json, path)
        let input: Template
        if let text = optional(o, "template") {
            let written = try string(text, path + "/template")
            do { input = Template(written: try JSONParser.parse(written, maxDepth: 1024)) } catch {
                throw MessageError("stored plan is malformed: '\(path)/template': \(error)")
            }
        } else {
            input = try template(o["input"], path + "/input")
        }
        return GraphNode(
            key: try string(o["key"], path + "/key"), procedure: try string(o["procedure"], path + "/procedure"), input: input,
            after: try strings(o["after"], path + "/after"), pool: try string(o["pool"], path + "/pool"),
            priority: try int(o["priority"], path + "/priority"), policies: try policies(o["policies"], path + "/policies"),
            kind: try optional(o, "kind").map { k throws(MessageError) in try kind(k, path + "/kind") } ?? .procedure,
            dependencies: try strings(o["dependencies"], path + "/dependencies"))
    }

    /// One member `{"case": payload}`, as `Codable` writes an enum case.
    private func enumCase(_ json: JSON?, _ path: String) throws(MessageError) -> (name: String, payload: JSONObject, path: String) {
        let o = try object(json, path)
        guard o.count == 1, let member = o.members.first else {
            throw MessageError("stored plan is malformed: '\(path)': expected an object with one member")
        }
        return (member.key, try object(member.value, path + "/" + member.key), path + "/" + member.key)
    }

    private func kind(_ json: JSON, _ path: String) throws(MessageError) -> NodeKind {
        let (name, payload, at) = try enumCase(json, path)
        switch name {
        case "procedure": return .procedure
        case "group": return .group(try group(payload["_0"], at + "/_0"))
        case "map":
            let m = try object(payload["_0"], at + "/_0")
            let failureText = try string(m["failure"], at + "/_0/failure")
            guard let failure = MapFailure(rawValue: failureText) else {
                throw MessageError("stored plan is malformed: '\(at)/_0/failure': unknown value '\(failureText)'")
            }
            return .map(
                MapSpec(
                    over: try template(m["over"], at + "/_0/over"), input: try template(m["input"], at + "/_0/input"),
                    concurrency: try optional(m, "concurrency").map { c throws(MessageError) in try int(c, at + "/_0/concurrency") },
                    failure: failure, rate: try optional(m, "rate").map { r throws(MessageError) in try rate(r, at + "/_0/rate") },
                    fair: try optional(m, "fair").map { f throws(MessageError) in try fair(f, at + "/_0/fair") }))
        case "signal":
            let m = try object(payload["_0"], at + "/_0")
            return .signal(SignalSpec(name: try string(m["name"], at + "/_0/name")))
        default: throw MessageError("stored plan is malformed: '\(path)': unknown kind '\(name)'")
        }
    }

    /// A group as the plan (and a node's stored `fragment`) holds it.
    func group(_ json: JSON?, _ path: String) throws(MessageError) -> GroupSpec {
        let o = try object(json, path)
        return GroupSpec(
            order: try strings(o["order"], path + "/order"), nodes: try nodes(o["nodes"], path + "/nodes"),
            output: try optional(o, "output").map { t throws(MessageError) in try template(t, path + "/output") })
    }

    /// A template in `Codable`'s form: `{"literal": {"_0": ...}}`, `{"reference": ...}`, ...
    private func template(_ json: JSON?, _ path: String) throws(MessageError) -> Template {
        let (name, payload, at) = try enumCase(json, path)
        switch name {
        case "literal":
            guard let value = payload["_0"] else { throw fail(at + "/_0", "a value", nil) }
            return .literal(value)
        case "reference":
            let r = try object(payload["_0"], at + "/_0")
            return .reference(Reference(node: try string(r["node"], at + "/_0/node"), select: try pointer(r["select"], at + "/_0/select")))
        case "array":
            guard case let .array(items)? = payload["_0"] else { throw fail(at + "/_0", "an array", payload["_0"]) }
            var result: [Template] = []
            result.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { result.append(try template(item, "\(at)/_0/\(i)")) }
            return .array(result)
        case "object":
            guard case let .array(items)? = payload["_0"] else { throw fail(at + "/_0", "an array", payload["_0"]) }
            var result: [TemplateMember] = []
            result.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                let m = try object(item, "\(at)/_0/\(i)")
                result.append(TemplateMember(key: try string(m["key"], "\(at)/_0/\(i)/key"), value: try template(m["value"], "\(at)/_0/\(i)/value")))
            }
            return .object(result)
        case "item": return .item(try pointer(payload["_0"], at + "/_0"))
        case "index": return .index
        default: throw MessageError("stored plan is malformed: '\(path)': unknown template kind '\(name)'")
        }
    }

    private func pointer(_ json: JSON?, _ path: String) throws(MessageError) -> JSONPointer {
        JSONPointer(tokens: try strings(try object(json, path)["tokens"], path + "/tokens"))
    }

    private func rawValue<T: RawRepresentable<String>>(_ json: JSON?, _ path: String, as type: T.Type) throws(MessageError) -> T {
        let text = try string(json, path)
        guard let value = T(rawValue: text) else { throw MessageError("stored plan is malformed: '\(path)': unknown value '\(text)'") }
        return value
    }

    private func policies(_ json: JSON?, _ path: String) throws(MessageError) -> NodePolicies {
        let o = try object(json, path)
        var p = NodePolicies()
        p.dependencies = try rawValue(o["dependencies"], path + "/dependencies", as: DependencyRule.self)
        p.onFailure = try rawValue(o["onFailure"], path + "/onFailure", as: FailurePolicy.self)
        guard o.count > 2 else { return p }  // the usual node: nothing else to read
        if let when = optional(o, "when") { p.when = try template(when, path + "/when") }
        if let c = optional(o, "condition") {
            let at = path + "/condition"
            let co = try object(c, at)
            p.condition = ConditionSpec(
                procedure: try string(co["procedure"], at + "/procedure"), input: try template(co["input"], at + "/input"),
                negate: try bool(co["negate"], at + "/negate"))
        }
        if let r = optional(o, "retry") {
            let at = path + "/retry"
            let ro = try object(r, at)
            p.retry = RetryPolicy(
                attempts: try int(ro["attempts"], at + "/attempts"), wait: try wait(ro["wait"], at + "/wait"),
                jitter: try bool(ro["jitter"], at + "/jitter"))
        }
        if let r = optional(o, "repeatPolicy") {
            let at = path + "/repeatPolicy"
            let ro = try object(r, at)
            guard let equals = ro["equals"] else { throw fail(at + "/equals", "a value", nil) }
            p.repeatPolicy = RepeatPolicy(
                select: try pointer(ro["select"], at + "/select"), equals: equals, wait: try wait(ro["wait"], at + "/wait"),
                max: try int(ro["max"], at + "/max"))
        }
        if let t = optional(o, "timeout") { p.timeout = try double(t, path + "/timeout") }
        if let m = optional(o, "mutex") { p.mutex = try strings(m, path + "/mutex") }
        if let c = optional(o, "concurrency") {
            let at = path + "/concurrency"
            let co = try object(c, at)
            p.concurrency = ConcurrencyPolicy(key: try template(co["key"], at + "/key"), limit: try int(co["limit"], at + "/limit"))
        }
        if let r = optional(o, "rate") { p.rate = try rate(r, path + "/rate") }
        if let f = optional(o, "fair") { p.fair = try fair(f, path + "/fair") }
        if let c = optional(o, "cache") { p.cache = CachePolicy(ttl: try double(try object(c, path + "/cache")["ttl"], path + "/cache/ttl")) }
        return p
    }

    private func rate(_ json: JSON, _ at: String) throws(MessageError) -> RatePolicy {
        let o = try object(json, at)
        return RatePolicy(key: try template(o["key"], at + "/key"), limit: try int(o["limit"], at + "/limit"), per: try double(o["per"], at + "/per"))
    }

    private func fair(_ json: JSON, _ at: String) throws(MessageError) -> FairPolicy {
        let o = try object(json, at)
        return FairPolicy(key: try template(o["key"], at + "/key"), weight: try int(o["weight"], at + "/weight"))
    }

    private func wait(_ json: JSON?, _ path: String) throws(MessageError) -> WaitStrategy {
        let (name, w, at) = try enumCase(json, path)
        func d(_ key: String) throws(MessageError) -> Double { try double(w[key], at + "/" + key) }
        switch name {
        case "immediate": return .immediate
        case "constant": return .constant(try d("_0"))
        case "incrementing": return .incrementing(initial: try d("initial"), increment: try d("increment"))
        case "fibonacci": return .fibonacci(period: try d("period"), max: try d("max"))
        case "exponential": return .exponential(initial: try d("initial"), factor: try d("factor"), max: try d("max"))
        case "random": return .random(min: try d("min"), max: try d("max"))
        default: throw MessageError("stored plan is malformed: '\(path)': unknown wait strategy '\(name)'")
        }
    }
}
