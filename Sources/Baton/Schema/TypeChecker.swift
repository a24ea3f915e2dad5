import Foundation

/// Checks a validated graph's node inputs against the schemas of the procedures they name:
/// literal values against the input schema, and `$from` references by the output schema of
/// the referenced node's procedure (followed through `select`). A procedure with no known
/// schema, a shape that is `any`, or a reference whose shape is unknown is never an error,
/// and neither is a member the schema does not name (a `Codable` struct ignores it).
/// Every mismatch is reported, each as a `GraphProblem` naming node, field, expected and found.
///
/// Group children are checked like nodes; a map's child input (`map/input`) is checked against
/// its procedure's input with `$item` standing for an element of what `map/over` yields (when
/// that is known) and `$index` for an integer; `map/over` must be an array.
///
/// To extend it: a new kind of node checks each of its templates with
/// `check(_:against:node:field:found:)`; a new kind of template part needs a case in
/// `injected` (what it stands for, or nil when that is not known) and in `shape(of:)`.
public struct TypeChecker: Sendable {
    /// Schemas by procedure name.
    public let schemas: [String: ProcedureSchema]

    public init(schemas: [String: ProcedureSchema]) { self.schemas = schemas }

    /// What a reference, `$item` or `$index` stands for, and where it comes from (for messages).
    public typealias Injected = (shape: TypeSchema, source: String)

    /// Every type problem of `graph`, nodes in graph order (a group's children after the group).
    public func check(_ graph: Graph) -> [GraphProblem] {
        let staticNodes = graph.staticNodes
        let context = Context(graph: graph, staticNodes: staticNodes)
        var problems: [GraphProblem] = []
        for node in staticNodes {
            let key = node.key
            let found = { (t: Template) in self.injected(t, context: context, element: nil) }
            switch node.kind {
            case .procedure:
                if let schema = schemas[node.procedure] {
                    problems += check(node.input, against: schema.input, node: key, field: "input", found: found)
                }
            case let .map(spec):
                let over = shape(of: spec.over, context: context, chain: 0).schema
                problems += check(spec.over, against: .array(items: .any), node: key, field: "map/over", found: found)
                var element: TypeSchema?
                if case let .array(items) = over.nonNull { element = items }
                if let schema = schemas[node.procedure] {
                    problems += check(
                        spec.input, against: schema.input, node: key, field: "map/input",
                        found: { self.injected($0, context: context, element: element) })
                }
            case .group:
                break  // its children follow it in `staticNodes`
            case .signal:
                break  // no input; its output is whatever the signal delivers
            }
            if let condition = node.policies.condition, let schema = schemas[condition.procedure] {
                problems += check(condition.input, against: schema.input, node: key, field: "condition/input", found: found)
            }
        }
        return problems
    }

    /// What a reference injects, as far as is known statically: the output schema of the
    /// referenced node's procedure, at `select`; nil when unknown. `baton.echo` outputs its input,
    /// so what it injects is the shape of its input template (followed through chains of echoes,
    /// up to `maximumEchoChain`, and no larger than `maximumShapeSize`); a map's output is an
    /// array of its procedure's outputs; a group's is the shape of its `output` template.
    public func shape(of reference: Reference, in graph: Graph) -> TypeSchema? {
        shape(of: reference, context: Context(graph: graph), chain: 0)?.schema
    }

    /// How many `baton.echo` or group nodes in a row a reference is followed through.
    public static let maximumEchoChain = 32
    /// Parts of a shape an echo's input may have before it counts as `any`, so that echoes
    /// injecting each other many times over cannot make checking slow.
    public static let maximumShapeSize = 10_000

    /// Every node by key (group children too), and the output shapes worked out once per graph.
    private final class Context {
        let nodes: [String: GraphNode]
        var outputs: [String: (schema: TypeSchema, size: Int)] = [:]

        init(graph: Graph, staticNodes: [GraphNode]? = nil) {
            let all = staticNodes ?? graph.staticNodes
            // No group children: the graph's own dictionary has every node.
            if all.count == graph.nodes.count {
                nodes = graph.nodes
                return
            }
            var nodes: [String: GraphNode] = [:]
            nodes.reserveCapacity(all.count)
            for node in all { nodes[node.key] = node }
            self.nodes = nodes
        }
    }

    private func injected(_ template: Template, context: Context, element: TypeSchema?) -> Injected? {
        switch template {
        case let .reference(reference):
            guard let shape = shape(of: reference, context: context, chain: 0)?.schema else { return nil }
            return (shape, "output of '\(reference.node)'" + (reference.select.tokens.isEmpty ? "" : " at '\(reference.select)'"))
        case let .item(pointer):
            guard let shape = element?.selecting(pointer) else { return nil }
            return (shape, "$item" + (pointer.tokens.isEmpty ? "" : " at '\(pointer)'"))
        case .index:
            return (.integer, "$index")
        default:
            return nil
        }
    }

    private func shape(of reference: Reference, context: Context, chain: Int) -> (schema: TypeSchema, size: Int)? {
        guard let source = context.nodes[reference.node] else { return nil }
        let whole: (schema: TypeSchema, size: Int)
        switch source.kind {
        case .procedure where source.procedure == EchoProcedure.name, .group:
            if let known = context.outputs[reference.node] {
                whole = known
            } else {
                guard chain < Self.maximumEchoChain else { return nil }
                whole = output(of: source, context: context, chain: chain + 1)
                context.outputs[reference.node] = whole
            }
        case .procedure:
            guard let output = schemas[source.procedure]?.output else { return nil }
            whole = (output, 1)
        case .signal:
            return nil  // any value: unknown until it is sent
        case let .map(spec):
            let child = schemas[source.procedure]?.output ?? .any
            switch spec.failure {
            case .failFast: whole = (.array(items: child), 1)
            case .collect:
                whole = (
                    .array(items: .object([SchemaProperty("ok", child, required: false), SchemaProperty("error", .string, required: false)])), 1
                )
            }
        }
        return whole.schema.selecting(reference.select).map { ($0, whole.size) }
    }

    /// The output of an echo (its input) or a group (its `output`, by default an object of its
    /// children's outputs by their own keys).
    private func output(of node: GraphNode, context: Context, chain: Int) -> (schema: TypeSchema, size: Int) {
        guard case let .group(spec) = node.kind else { return shape(of: node.input, context: context, chain: chain) }
        if let output = spec.output { return shape(of: output, context: context, chain: chain) }
        let prefix = node.key + "/"
        let members = spec.order.map { child in
            TemplateMember(
                key: child.hasPrefix(prefix) ? String(child.dropFirst(prefix.count)) : child, value: .reference(Reference(node: child)))
        }
        return shape(of: .object(members), context: context, chain: chain)
    }

    /// The shape of the value a template becomes (`any` where that is not known), with its size.
    private func shape(of template: Template, context: Context, chain: Int) -> (schema: TypeSchema, size: Int) {
        let result: (schema: TypeSchema, size: Int)
        switch template {
        case let .literal(json):
            result = (TypeSchema(shapeOf: json), 1)  // as large as the input as written, which the graph limits bound
        case let .reference(reference):
            result = shape(of: reference, context: context, chain: chain) ?? (.any, 1)
        case let .array(items):
            let parts = items.map { shape(of: $0, context: context, chain: chain) }
            result = (.array(items: TypeSchema.common(parts.map(\.schema))), parts.reduce(1) { $0 + $1.size })
        case let .object(members):
            let parts = members.map { shape(of: $0.value, context: context, chain: chain) }
            result = (.object(zip(members, parts).map { SchemaProperty($0.key, $1.schema) }), parts.reduce(1) { $0 + $1.size })
        case .item, .index:
            result = (.any, 1)
        }
        return result.size > Self.maximumShapeSize ? (.any, 1) : result
    }

    /// The problems of one template against one schema. `field` names where the template is
    /// (`input`); `found` gives what a reference, `$item` or `$index` stands for, or nil when unknown.
    public func check(
        _ template: Template, against expected: TypeSchema, node: String, field: String, found: (Template) -> Injected?
    ) -> [GraphProblem] {
        var problems: [GraphProblem] = []
        func mismatch(_ field: String, _ expected: TypeSchema, _ found: String) {
            problems.append(GraphProblem(node: node, field: field, message: "expected \(expected.summary), found \(found)"))
        }
        func visit(_ template: Template, _ expected: TypeSchema, _ field: String) {
            switch (template, expected) {
            case (_, .any):
                return
            case (.reference, _), (.item, _), (.index, _):
                guard let injected = found(template) else { return }
                if let problem = TypeChecker.mismatch(injected.shape, expected) {
                    problems.append(GraphProblem(node: node, field: field, message: problem.message(source: injected.source)))
                }
            case (.literal(.null), .nullable), (.literal(.null), .null):
                return
            case let (_, .nullable(inner)):
                visit(template, inner, field)
            case let (.literal(.array(items)), .array):
                visit(.array(items.map(Template.literal)), expected, field)
            case let (.literal(.object(members)), .object):
                visit(.object(members.map { TemplateMember(key: $0.key, value: .literal($0.value)) }), expected, field)
            case let (.array(items), .array(itemSchema)):
                for (i, item) in items.enumerated() { visit(item, itemSchema, "\(field)/\(i)") }
            case let (.object(members), .object(properties, additional)):
                for property in properties {
                    let path = "\(field)/\(TypeChecker.escaped(property.name))"
                    if let member = members.first(where: { $0.key == property.name }) {
                        if case .literal(.null) = member.value, !property.required { continue }
                        visit(member.value, property.schema, path)
                    } else if property.required {
                        mismatch(path, property.schema, "nothing")
                    }
                }
                if let additional {
                    for member in members where !properties.contains(where: { $0.name == member.key }) {
                        visit(member.value, additional, "\(field)/\(TypeChecker.escaped(member.key))")
                    }
                }
            case let (.literal(value), _):
                if !TypeChecker.accepts(expected, value) { mismatch(field, expected, TypeChecker.kind(of: value)) }
            case (.array, _):
                mismatch(field, expected, "array")
            case (.object, _):
                mismatch(field, expected, "object")
            }
        }
        visit(template, expected, field)
        return problems
    }

    /// Whether a scalar (or an array or object against a scalar schema) fits.
    static func accepts(_ schema: TypeSchema, _ value: JSON) -> Bool {
        switch (schema, value) {
        case (.any, _), (.null, .null), (.boolean, .bool), (.number, .int), (.number, .double), (.integer, .int): return true
        case let (.integer, .double(d)): return d == d.rounded()  // JSONDecoder reads 2.0 as an integer
        case let (.string(values), .string(s)): return values.map { $0.contains(s) } ?? true
        case let (.nullable(inner), _): return value.isNull || accepts(inner, value)
        default: return false
        }
    }

    /// The kind of a JSON value in the words schemas use (`integer` for a whole number).
    static func kind(of value: JSON) -> String {
        switch value {
        case .int: return "integer"
        case .double: return "number"
        case let .string(s): return "string \"\(s.count > 40 ? String(s.prefix(40)) + "..." : s)\""
        default: return value.kindName
        }
    }

    /// Whether a value of shape `found` fits `expected` (nil: it does, or it may); else what and
    /// where it differs, down to the member.
    static func mismatch(_ found: TypeSchema, _ expected: TypeSchema) -> TypeMismatch? {
        if found == .null {
            switch expected {
            case .any, .null, .nullable: return nil
            default: return .types(expected: expected, found: "null")
            }
        }
        switch (found.nonNull, expected.nonNull) {
        case (.any, _), (_, .any): return nil
        case (.null, .null), (.boolean, .boolean), (.integer, .integer), (.integer, .number), (.number, .number), (.number, .integer):
            return nil
        case let (.string(found), .string(allowed)):
            guard let allowed, let found else { return nil }  // any string may happen to be allowed
            return found.allSatisfy(allowed.contains) ? nil : .types(expected: expected, found: TypeSchema.string(values: found).summary)
        case let (.array(foundItems), .array(expectedItems)):
            guard let inner = mismatch(foundItems, expectedItems) else { return nil }
            if case let .types(_, innerFound) = inner { return .types(expected: expected, found: "array of \(innerFound)") }
            return .items(inner)
        case let (.object(foundProperties, foundAdditional), .object(expectedProperties, expectedAdditional)):
            for property in expectedProperties {
                if let match = foundProperties.first(where: { $0.name == property.name }) {
                    if let inner = mismatch(match.schema, property.schema) { return .member(property.name, inner) }
                } else if let foundAdditional {
                    if let inner = mismatch(foundAdditional, property.schema) { return .member(property.name, inner) }
                } else if property.required {
                    return .missing(member: property.name, has: foundProperties.map(\.name))
                }
            }
            if let expectedAdditional {
                let others = foundProperties.filter { p in !expectedProperties.contains { $0.name == p.name } }
                for property in others {
                    if let inner = mismatch(property.schema, expectedAdditional) { return .member(property.name, inner) }
                }
                if let foundAdditional, mismatch(foundAdditional, expectedAdditional) != nil {
                    return .types(expected: expected, found: found.summary)
                }
            }
            return nil
        default:
            return .types(expected: expected, found: found.summary)
        }
    }

    /// A member name as a JSON pointer token.
    static func escaped(_ name: String) -> String {
        guard name.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return name }
        return name.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
