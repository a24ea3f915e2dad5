import Foundation

/// Builds a graph in Swift, with the types checked by the compiler: adding a node returns a
/// `NodeHandle` typed by the procedure's output, and an input only accepts values of its own
/// type (`handle.output`, `handle.output(\.field)`, `.literal(...)`, a run input, a map item).
/// `json()` is the graph file, exactly; `build()` validates it with `GraphDecoder`, as `submit` does.
///
/// ```swift
/// var graph = GraphBuilder(name: "greet")
/// let greet = graph.add("greet", Greet.self, input: Greet.Input(name: "Ada"))
/// graph.add("shout", Shout.self, fields: { $0.set(\.text, greet.output(\.greeting)) })
/// let run = try store.submit(graph.build())
/// ```
public struct GraphBuilder: Sendable {
    public var name: String?
    public var description: String?
    public var defaults = GraphDefaults()
    /// Group keys from the root to this builder (empty at the root).
    let scope: [String]
    private var nodes: [(key: String, value: JSON)] = []
    /// Per node, the nodes of enclosing scopes it references (to find a sibling that shadows one).
    private var outerReferences: [(node: String, key: String)] = []
    /// Nodes of enclosing scopes referenced from here: they are the enclosing group's references.
    private var outerScoped: [ScopedKey] = []
    private var runInput: JSON?
    /// Mistakes found so far that the compiler cannot see (`build()` throws them with the decoder's).
    public private(set) var problems: [GraphProblem] = []

    public init(name: String? = nil) {
        self.name = name
        self.scope = []
    }

    init(scope: [String]) {
        self.scope = scope
    }

    // MARK: - Nodes

    /// Adds a node running `procedure` on `input`, a value of exactly the procedure's input type.
    @discardableResult
    public mutating func add<P: Procedure>(
        _ key: String, _ procedure: P.Type, input: GraphValue<P.Input>, options: NodeOptions = NodeOptions()
    ) -> NodeHandle<P.Output> {
        addNode(
            key, head: [("procedure", .string(Self.written(P.self))), ("input", input.template)], values: [("input", input.json)], options: options)
    }

    /// Adds a node with a literal input.
    @discardableResult
    public mutating func add<P: Procedure>(
        _ key: String, _ procedure: P.Type, input: P.Input, options: NodeOptions = NodeOptions()
    ) -> NodeHandle<P.Output> {
        add(key, procedure, input: .literal(input), options: options)
    }

    /// Adds a node whose input is set field by field: `fields: { $0.set(\.text, other.output(\.text)) }`.
    @discardableResult
    public mutating func add<P: Procedure>(
        _ key: String, _ procedure: P.Type, options: NodeOptions = NodeOptions(), fields: (inout InputFields<P.Input>) -> Void
    ) -> NodeHandle<P.Output> {
        add(key, procedure, input: .fields(fields), options: options)
    }

    /// Adds a node running a procedure that may spawn a sub-graph (`add("fib", spawning: Fib.self, input: ...)`);
    /// its output type is the one the sub-graph's output (or the procedure's own) has. The label
    /// keeps the overloads of `add(_:_:input:)` few, so a mismatched input is diagnosed plainly.
    @discardableResult
    public mutating func add<P: SpawningProcedure>(
        _ key: String, spawning procedure: P.Type, input: GraphValue<P.Input>, options: NodeOptions = NodeOptions()
    ) -> NodeHandle<P.Output> {
        addNode(
            key, head: [("procedure", .string(Self.written(P.self))), ("input", input.template)], values: [("input", input.json)], options: options)
    }

    /// Adds a spawning procedure's node with a literal input.
    @discardableResult
    public mutating func add<P: SpawningProcedure>(
        _ key: String, spawning procedure: P.Type, input: P.Input, options: NodeOptions = NodeOptions()
    ) -> NodeHandle<P.Output> {
        add(key, spawning: procedure, input: .literal(input), options: options)
    }

    /// Adds a node by procedure name, for a procedure whose Swift type is not at hand: untyped (`JSON`).
    @discardableResult
    public mutating func add(
        _ key: String, procedure: String, input: GraphValue<JSON> = .literal([:]), options: NodeOptions = NodeOptions()
    ) -> NodeHandle<JSON> {
        addNode(key, head: [("procedure", .string(procedure)), ("input", input.template)], values: [("input", input)], options: options)
    }

    /// Adds a `baton.delay` of `seconds` (a durable timer; no worker runs it).
    @discardableResult
    public mutating func delay(_ key: String, seconds: GraphValue<Double>, options: NodeOptions = NodeOptions()) -> NodeHandle<DelayFired> {
        let input: JSON = ["seconds": seconds.template]
        return addNode(
            key, head: [("procedure", .string(DelayProcedure.name)), ("input", input)],
            values: [("input/seconds", seconds.json)], options: options)
    }

    /// Adds a `baton.delay` of a fixed duration.
    @discardableResult
    public mutating func delay(_ key: String, for duration: Duration, options: NodeOptions = NodeOptions()) -> NodeHandle<DelayFired> {
        let c = duration.components
        return delay(key, seconds: .literal(Double(c.seconds) + Double(c.attoseconds) / 1e18), options: options)
    }

    /// Adds a `baton.delay` until an instant.
    @discardableResult
    public mutating func delay(_ key: String, until date: Date, options: NodeOptions = NodeOptions()) -> NodeHandle<DelayFired> {
        let text = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
        return addNode(
            key, head: [("procedure", .string(DelayProcedure.name)), ("input", ["until": .string(text)])], values: [], options: options)
    }

    /// Adds a `signal` node: it waits, holding no worker slot, until `baton signal` (or `Store.signal`)
    /// delivers a value, which is its output (typed as `Value`; `JSON` when not given). Set how long it
    /// waits with `options.timeout`, and what a timeout does with `retry` and `onFailure`.
    @discardableResult
    public mutating func signal<Value>(
        _ key: String, name: String, of type: Value.Type = JSON.self, options: NodeOptions = NodeOptions()
    ) -> NodeHandle<Value> {
        addNode(key, head: [("signal", .string(name))], values: [], options: options)
    }

    /// Adds a `map`: one child running `procedure` per element of `over`, with the input `template`
    /// makes from the element (`$0.item`, `$0.item(\.field)`, `$0.index`). Its output is the array of
    /// the children's outputs. The node's `retry`, `timeout` and `pool` apply to each child; `rate`
    /// (`map/rate`) limits how fast the children start, its key made from the element or not
    /// (`rate: { RateOption(key: $0.item(\.host), limit: 5, per: .seconds(1)) }`); `fair` (`map/fair`)
    /// gives the children a fair-share key and weight made the same way (`fair: { FairOption(key: $0.item(\.tenant)) }`).
    @discardableResult
    public mutating func map<Element, P: Procedure>(
        _ key: String, over: GraphValue<[Element]>, _ procedure: P.Type, concurrency: Int? = nil, rate: ((MapItem<Element>) -> RateOption)? = nil,
        fair: ((MapItem<Element>) -> FairOption)? = nil,
        options: NodeOptions = NodeOptions(), input template: (MapItem<Element>) -> GraphValue<P.Input>
    ) -> NodeHandle<[P.Output]> {
        addMap(
            key, over: over, Self.written(P.self), concurrency: concurrency, failure: nil, rate: rate?(MapItem()), fair: fair?(MapItem()),
            options: options,
            template: template(MapItem()).json)
    }

    /// A `map` of a procedure by name, for one whose Swift type is not at hand: untyped (`JSON`).
    @discardableResult
    public mutating func map<Element>(
        _ key: String, over: GraphValue<[Element]>, procedure: String, concurrency: Int? = nil, failure: MapFailure? = nil,
        rate: ((MapItem<Element>) -> RateOption)? = nil,
        fair: ((MapItem<Element>) -> FairOption)? = nil, options: NodeOptions = NodeOptions(),
        input template: (MapItem<Element>) -> GraphValue<JSON>
    ) -> NodeHandle<JSON> {
        addMap(
            key, over: over, procedure, concurrency: concurrency, failure: failure, rate: rate?(MapItem()), fair: fair?(MapItem()),
            options: options,
            template: template(MapItem()))
    }

    /// A `map` with `failure: collect`: it succeeds with `{"ok": output}` or `{"error": message}` per element.
    @discardableResult
    public mutating func mapCollecting<Element, P: Procedure>(
        _ key: String, over: GraphValue<[Element]>, _ procedure: P.Type, concurrency: Int? = nil, rate: ((MapItem<Element>) -> RateOption)? = nil,
        fair: ((MapItem<Element>) -> FairOption)? = nil,
        options: NodeOptions = NodeOptions(), input template: (MapItem<Element>) -> GraphValue<P.Input>
    ) -> NodeHandle<[MapOutcome<P.Output>]> {
        addMap(
            key, over: over, Self.written(P.self), concurrency: concurrency, failure: .collect, rate: rate?(MapItem()), fair: fair?(MapItem()),
            options: options,
            template: template(MapItem()).json)
    }

    /// The name a typed node writes: its type's version pinned when it is above 1 (the node's input
    /// is that version's `Input`), else the plain name, planned at submit.
    static func written<P: Procedure>(_ procedure: P.Type) -> String {
        P.version == 1 ? P.name : "\(P.name)@\(P.version)"
    }

    /// As `written` for a spawning procedure.
    static func written<P: SpawningProcedure>(_ procedure: P.Type) -> String {
        P.version == 1 ? P.name : "\(P.name)@\(P.version)"
    }

    private mutating func addMap<Element, Output>(
        _ key: String, over: GraphValue<[Element]>, _ procedure: String, concurrency: Int?, failure: MapFailure?, rate: RateOption?,
        fair: FairOption? = nil, options: NodeOptions, template: GraphValue<JSON>
    ) -> NodeHandle<Output> {
        var map: [(key: String, value: JSON)] = [("over", over.template), ("procedure", .string(procedure)), ("input", template.template)]
        if let concurrency { map.append(("concurrency", .int(Int64(concurrency)))) }
        if let failure { map.append(("failure", .string(failure.rawValue))) }
        if let rate { map.append(("rate", rate.fileJSON)) }
        if let fair { map.append(("fair", fair.fileJSON)) }
        // The template and the rate and fair keys may hold $item and $index; nothing else may.
        let inTemplate = GraphValue<JSON>(template: template.template, references: template.references, problems: template.problems)
        var values: [(field: String, value: GraphValue<JSON>)] = [("map/over", over.json), ("map/input", inTemplate)]
        if let rate {
            values.append(
                ("map/rate/key", GraphValue<JSON>(template: rate.key.template, references: rate.key.references, problems: rate.key.problems)))
        }
        if let fair {
            values.append(
                ("map/fair/key", GraphValue<JSON>(template: fair.key.template, references: fair.key.references, problems: fair.key.problems)))
        }
        return addNode(key, head: [("map", .object(JSONObject(map)))], values: values, options: options)
    }

    /// Adds a `group`: the nodes `body` adds form a sub-graph that acts as one node, whose output is
    /// the value `body` returns (built from its children's outputs). Children reference each other
    /// by their keys and may reference nodes outside; outside nodes reference only the group.
    @discardableResult
    public mutating func group<Output>(
        _ key: String, options: NodeOptions = NodeOptions(), _ body: (inout GraphBuilder) -> GraphValue<Output>
    ) -> NodeHandle<Output> {
        var inner = GraphBuilder(scope: scope + [key])
        let output = body(&inner)
        return addGroup(key, inner, output: output.json, options: options)
    }

    /// Adds a `group` with the default output: an object of every child's output, by child key.
    @discardableResult
    public mutating func group(_ key: String, options: NodeOptions = NodeOptions(), _ body: (inout GraphBuilder) -> Void) -> NodeHandle<JSON> {
        var inner = GraphBuilder(scope: scope + [key])
        body(&inner)
        return addGroup(key, inner, output: nil, options: options)
    }

    private mutating func addGroup<Output>(
        _ key: String, _ inner: GraphBuilder, output: GraphValue<JSON>?, options: NodeOptions
    ) -> NodeHandle<Output> {
        var inner = inner
        if let output { inner.check(output, node: nil, field: "group/output", inMap: false) }
        for problem in inner.problems {
            problems.append(GraphProblem(node: problem.node.map { "\(key)/\($0)" } ?? key, field: problem.field, message: problem.message))
        }
        // A reference from inside to an enclosing node is read as a sibling's when a sibling has that key.
        let childKeys = Set(inner.nodes.map(\.key))
        for reference in inner.outerReferences where childKeys.contains(reference.key) {
            problems.append(
                GraphProblem(
                    node: reference.node.isEmpty ? key : "\(key)/\(reference.node)", field: reference.node.isEmpty ? "group/output" : "",
                    message: "references outer node '\(reference.key)', but the group has a child with that key, which the reference would name"))
        }
        var group: [(key: String, value: JSON)] = [("nodes", .object(JSONObject(inner.nodes)))]
        if let output { group.append(("output", output.template)) }
        // References that leave the group are the group node's own, as seen from this scope.
        let escaping = GraphValue<JSON>(template: .null, references: inner.outerScoped)
        return addNode(key, head: [("group", .object(JSONObject(group)))], values: [("group", escaping)], options: options)
    }

    // MARK: - Run input

    /// Declares the run's input with its defaults (`"input": {...}`); `baton submit --input` merges over them.
    /// The returned value reads its fields, typed: `input.value(\.customer)`.
    public mutating func declareInput<Input: Encodable>(_ defaults: Input) -> GraphInput<Input> {
        do {
            runInput = try JSON(encoding: defaults)
        } catch {
            problems.append(GraphProblem(node: nil, field: "input", message: "could not encode the run input's defaults: \(error)"))
        }
        return GraphInput()
    }

    // MARK: - Output

    /// The graph file this builder describes (`name`, `input`, `defaults`, `nodes`).
    public func json() -> JSON {
        var root: [(key: String, value: JSON)] = []
        if let name { root.append(("name", .string(name))) }
        if let description { root.append(("description", .string(description))) }
        if let runInput { root.append(("input", runInput)) }
        if !defaults.isEmpty { root.append(("defaults", defaults.fileJSON)) }
        root.append(("nodes", .object(JSONObject(nodes))))
        return .object(JSONObject(root))
    }

    /// The nodes as a fragment a procedure spawns: `{"nodes": {...}, "output": TEMPLATE}`.
    public func fragment<Output>(output: GraphValue<Output>) -> GraphFragment<Output> {
        var copy = self
        copy.check(output.json, node: nil, field: "output", inMap: false)
        return GraphFragment(json: ["nodes": .object(JSONObject(nodes)), "output": output.template], problems: copy.problems)
    }

    /// The validated graph, checked as `baton submit` checks a file: throws every problem, the
    /// builder's (such as a key path that names no field) and the decoder's. `input` is the run's
    /// input, merged over the declared defaults (`baton submit --input`); every `$input` is then
    /// replaced by its value, so the graph's `source` holds the values, not the references.
    /// `servedVersions` plans each node that names no version (`GraphDecoder.servedVersions`).
    public func build(
        knownProcedures: Set<String>? = nil, limits: GraphLimits = GraphLimits(), input: JSON? = nil, servedVersions: ServedVersions? = nil
    ) throws(GraphValidationError) -> Graph {
        let document = json()
        var decoder = GraphDecoder(knownProcedures: knownProcedures, limits: limits)
        decoder.servedVersions = servedVersions
        let graph: Graph
        do {
            graph = try decoder.decode(document.serializedBytes(), input: input, defaultName: name ?? "unnamed")
        } catch {
            throw GraphValidationError(problems: problems + error.problems.filter { !problems.contains($0) })
        }
        if !problems.isEmpty { throw GraphValidationError(problems: problems) }
        return graph
    }

    // MARK: - Checks

    private mutating func addNode<Output>(
        _ key: String, head: [(key: String, value: JSON)], values: [(field: String, value: GraphValue<JSON>)], options: NodeOptions
    ) -> NodeHandle<Output> {
        if nodes.contains(where: { $0.key == key }) {
            // Reported here, once: the second node is left out, so the decoder sees no duplicate key.
            problems.append(GraphProblem(node: key, field: "", message: "a node with this key was already added"))
            return NodeHandle(key: key, scope: scope)
        }
        for (field, value) in values { check(value, node: key, field: field, inMap: ["map/input", "map/rate/key", "map/fair/key"].contains(field)) }
        for (i, reference) in options.after.enumerated() {
            check(GraphValue(template: .null, references: [reference.scopedKey.value]), node: key, field: "after/\(i)", inMap: false)
        }
        if let when = options.when { check(when.json, node: key, field: "when", inMap: false) }
        if let condition = options.condition { check(condition.input, node: key, field: "condition/input", inMap: false) }
        if let concurrency = options.concurrency { check(concurrency.key, node: key, field: "concurrency/key", inMap: false) }
        if let rate = options.rate { check(rate.key, node: key, field: "rate/key", inMap: false) }
        if let fair = options.fair { check(fair.key, node: key, field: "fair/key", inMap: false) }
        for (field, value) in options.raw { check(value, node: key, field: field, inMap: false) }
        for message in options.repeatUntil?.problems ?? [] { problems.append(GraphProblem(node: key, field: "repeat/until", message: message)) }
        nodes.append((key, .object(JSONObject(head + options.members()))))
        return NodeHandle(key: key, scope: scope)
    }

    /// Records what is wrong with a value used by `node` in `field`.
    private mutating func check(_ value: GraphValue<JSON>, node: String?, field: String, inMap: Bool) {
        for message in value.problems { problems.append(GraphProblem(node: node, field: field, message: message)) }
        if value.usesItem && !inMap {
            problems.append(GraphProblem(node: node, field: field, message: "$item and $index are only meaningful in a map's input template"))
        }
        for reference in value.references {
            if reference.scope == scope { continue }
            if reference.scope.count < scope.count, Array(scope.prefix(reference.scope.count)) == reference.scope {
                outerReferences.append((node ?? "", reference.key))
                if !outerScoped.contains(reference) { outerScoped.append(reference) }
                continue
            }
            let inside = (reference.scope + [reference.key]).joined(separator: "/")
            problems.append(
                GraphProblem(
                    node: node, field: field,
                    message: "references '\(inside)' inside a group it is not part of: nodes outside a group reference the group, never its children")
            )
        }
    }
}
