/// Writes a graph's stored plan (`baton.runs.plan`) straight to JSON text: the document that
/// `Graph`'s `Codable` conformance gives (members in another order, numbers maybe spelled
/// otherwise), so each reads what the other writes, at a small fraction of Foundation's cost.
struct PlanWriter {
    private(set) var out: [UInt8] = []
    /// A node's template as written, before it goes in as a JSON string.
    private var scratch: [UInt8] = []

    /// The plan of `graph`, as `Graph.planBytes()` returns it.
    static func plan(_ graph: Graph) -> [UInt8] {
        var w = PlanWriter()
        w.out.reserveCapacity(256 * graph.order.count + 64)
        w.raw("{\"v\":")
        w.int(Graph.planVersion)
        w.raw(",\"name\":")
        w.string(graph.name)
        w.raw(",\"order\":")
        w.strings(graph.order)
        w.raw(",\"nodes\":")
        w.nodes(graph.order, graph.nodes)
        w.raw("}")
        return w.out
    }

    /// `,"rate":{"key":…,"limit":…,"per":…}`.
    private mutating func rate(_ r: RatePolicy) {
        raw(",\"rate\":{\"key\":")
        template(r.key)
        raw(",\"limit\":")
        int(r.limit)
        raw(",\"per\":")
        double(r.per)
        raw("}")
    }

    /// `,"fair":{"key":…,"weight":…}`.
    private mutating func fair(_ f: FairPolicy) {
        raw(",\"fair\":{\"key\":")
        template(f.key)
        raw(",\"weight\":")
        int(f.weight)
        raw("}")
    }

    private mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    private mutating func string(_ s: String) { JSON.writeString(s, into: &out) }

    private mutating func int(_ i: Int) {
        if i >= 0 && i < 10 { out.append(0x30 + UInt8(i)) } else { out.append(contentsOf: String(i).utf8) }
    }

    private mutating func double(_ d: Double) { out.append(contentsOf: JSON.format(d).utf8) }

    private mutating func bool(_ b: Bool) { if b { raw("true") } else { raw("false") } }

    private mutating func strings(_ list: [String]) {
        out.append(UInt8(ascii: "["))
        for (i, s) in list.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            string(s)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// Every key of `order` that `nodes` has, then any others (there are none in a valid graph).
    private mutating func nodes(_ order: [String], _ nodes: [String: GraphNode]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        func member(_ node: GraphNode, _ w: inout PlanWriter) {
            if !first { w.out.append(UInt8(ascii: ",")) }
            first = false
            w.string(node.key)
            w.out.append(UInt8(ascii: ":"))
            w.node(node)
        }
        for key in order { if let node = nodes[key] { member(node, &self) } }
        if nodes.count != order.count {
            let listed = Set(order)
            for (key, node) in nodes where !listed.contains(key) { member(node, &self) }
        }
        out.append(UInt8(ascii: "}"))
    }

    private mutating func node(_ node: GraphNode) {
        raw("{\"key\":")
        string(node.key)
        raw(",\"procedure\":")
        string(node.procedure)
        switch node.kind {
        case .procedure: break
        case let .group(spec):
            raw(",\"kind\":{\"group\":{\"_0\":")
            group(spec)
            raw("}}")
        case let .map(spec):
            raw(",\"kind\":{\"map\":{\"_0\":{\"over\":")
            template(spec.over)
            raw(",\"input\":")
            template(spec.input)
            if let c = spec.concurrency {
                raw(",\"concurrency\":")
                int(c)
            }
            raw(",\"failure\":")
            string(spec.failure.rawValue)
            if let r = spec.rate { rate(r) }
            if let f = spec.fair { fair(f) }
            raw("}}}")
        case let .signal(spec):
            raw(",\"kind\":{\"signal\":{\"_0\":{\"name\":")
            string(spec.name)
            raw("}}}")
        }
        if node.input.writtenReadsBack {
            // Compact: the template as a graph file writes it, as JSON text (so no encoder or jsonb reorders its members).
            scratch.removeAll(keepingCapacity: true)
            Self.written(node.input, into: &scratch)
            raw(",\"template\":")
            JSON.writeString(utf8: scratch, into: &out)
        } else {
            raw(",\"input\":")
            template(node.input)
        }
        raw(",\"after\":")
        strings(node.after)
        raw(",\"pool\":")
        string(node.pool)
        raw(",\"priority\":")
        int(node.priority)
        raw(",\"policies\":")
        policies(node.policies)
        raw(",\"dependencies\":")
        strings(node.dependencies)
        raw("}")
    }

    private mutating func group(_ spec: GroupSpec) {
        raw("{\"order\":")
        strings(spec.order)
        raw(",\"nodes\":")
        nodes(spec.order, spec.nodes)
        if let output = spec.output {
            raw(",\"output\":")
            template(output)
        }
        raw("}")
    }

    /// `Template.written`, serialized without building it.
    static func written(_ template: Template, into out: inout [UInt8]) {
        switch template {
        case let .literal(json):
            json.write(into: &out, sortedKeys: false)
        case let .reference(r):
            out.append(contentsOf: #"{"$from":"#.utf8)
            JSON.writeString(r.node, into: &out)
            if !r.select.tokens.isEmpty {
                out.append(contentsOf: #","select":"#.utf8)
                JSON.writeString(r.select.description, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case let .array(items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                written(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(members):
            out.append(UInt8(ascii: "{"))
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                written(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case let .item(pointer):
            out.append(contentsOf: #"{"$item":"#.utf8)
            JSON.writeString(pointer.description, into: &out)
            out.append(UInt8(ascii: "}"))
        case .index:
            out.append(contentsOf: #"{"$index":true}"#.utf8)
        }
    }

    /// A template in `Codable`'s form (`{"literal": {"_0": ...}}`, ...).
    private mutating func template(_ template: Template) {
        switch template {
        case let .literal(json):
            raw("{\"literal\":{\"_0\":")
            json.write(into: &out, sortedKeys: false)
            raw("}}")
        case let .reference(r):
            raw("{\"reference\":{\"_0\":{\"node\":")
            string(r.node)
            raw(",\"select\":")
            pointer(r.select)
            raw("}}}")
        case let .array(items):
            raw("{\"array\":{\"_0\":[")
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                self.template(item)
            }
            raw("]}}")
        case let .object(members):
            raw("{\"object\":{\"_0\":[")
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                raw("{\"key\":")
                string(member.key)
                raw(",\"value\":")
                self.template(member.value)
                raw("}")
            }
            raw("]}}")
        case let .item(p):
            raw("{\"item\":{\"_0\":")
            pointer(p)
            raw("}}")
        case .index:
            raw("{\"index\":{}}")
        }
    }

    private mutating func pointer(_ p: JSONPointer) {
        raw("{\"tokens\":")
        strings(p.tokens)
        raw("}")
    }

    private mutating func policies(_ p: NodePolicies) {
        raw("{\"dependencies\":")
        string(p.dependencies.rawValue)
        raw(",\"onFailure\":")
        string(p.onFailure.rawValue)
        if let when = p.when {
            raw(",\"when\":")
            template(when)
        }
        if let c = p.condition {
            raw(",\"condition\":{\"procedure\":")
            string(c.procedure)
            raw(",\"input\":")
            template(c.input)
            raw(",\"negate\":")
            bool(c.negate)
            raw("}")
        }
        if let r = p.retry {
            raw(",\"retry\":{\"attempts\":")
            int(r.attempts)
            raw(",\"wait\":")
            wait(r.wait)
            raw(",\"jitter\":")
            bool(r.jitter)
            raw("}")
        }
        if let r = p.repeatPolicy {
            raw(",\"repeatPolicy\":{\"select\":")
            pointer(r.select)
            raw(",\"equals\":")
            r.equals.write(into: &out, sortedKeys: false)
            raw(",\"wait\":")
            wait(r.wait)
            raw(",\"max\":")
            int(r.max)
            raw("}")
        }
        if let t = p.timeout {
            raw(",\"timeout\":")
            double(t)
        }
        if let m = p.mutex {
            raw(",\"mutex\":")
            strings(m)
        }
        if let c = p.concurrency {
            raw(",\"concurrency\":{\"key\":")
            template(c.key)
            raw(",\"limit\":")
            int(c.limit)
            raw("}")
        }
        if let c = p.cache {
            raw(",\"cache\":{\"ttl\":")
            double(c.ttl)
            raw("}")
        }
        if let r = p.rate { rate(r) }
        if let f = p.fair { fair(f) }
        raw("}")
    }

    private mutating func wait(_ w: WaitStrategy) {
        switch w {
        case .immediate:
            raw("{\"immediate\":{}}")
        case let .constant(d):
            raw("{\"constant\":{\"_0\":")
            double(d)
            raw("}}")
        case let .incrementing(initial, increment):
            raw("{\"incrementing\":{\"initial\":")
            double(initial)
            raw(",\"increment\":")
            double(increment)
            raw("}}")
        case let .fibonacci(period, max):
            raw("{\"fibonacci\":{\"period\":")
            double(period)
            raw(",\"max\":")
            double(max)
            raw("}}")
        case let .exponential(initial, factor, max):
            raw("{\"exponential\":{\"initial\":")
            double(initial)
            raw(",\"factor\":")
            double(factor)
            raw(",\"max\":")
            double(max)
            raw("}}")
        case let .random(min, max):
            raw("{\"random\":{\"min\":")
            double(min)
            raw(",\"max\":")
            double(max)
            raw("}}")
        }
    }
}
