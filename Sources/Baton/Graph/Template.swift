/// A node's input as written in the graph: JSON in which `$from` objects stand
/// for values injected at run time.
public indirect enum Template: Sendable, Hashable, Codable {
    case literal(JSON)
    case reference(Reference)
    case array([Template])
    case object([TemplateMember])
    /// In a map's child input: the element (or the part `pointer` names) the child runs on.
    case item(JSONPointer)
    /// In a map's child input: the child's index.
    case index

    /// Every reference in the template, in document order.
    public var references: [Reference] {
        switch self {
        case .literal, .item, .index: return []
        case let .reference(r): return [r]
        case let .array(items): return items.flatMap(\.references)
        case let .object(members): return members.flatMap(\.value.references)
        }
    }

    /// The JSON value with every reference replaced. `output` gives a node's
    /// output, or nil when it has none (skipped, failed, cancelled): such a
    /// reference injects `null`, whatever it selects. A missing `select` target throws.
    public func resolve(output: (String) -> JSON?) throws(TemplateError) -> JSON {
        switch self {
        case let .literal(json):
            return json
        case let .reference(r):
            guard let value = output(r.node) else { return .null }
            do {
                return try r.select.resolve(in: value)
            } catch {
                throw TemplateError(reference: r, reason: error.reason)
            }
        case let .array(items):
            var out: [JSON] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try item.resolve(output: output)) }
            return .array(out)
        case let .object(members):
            var out: [(key: String, value: JSON)] = []
            out.reserveCapacity(members.count)
            for m in members { out.append((m.key, try m.value.resolve(output: output))) }
            return .object(JSONObject(out))
        case .item, .index:
            return .null  // only in a map's template, which `substituting(item:index:)` resolves first
        }
    }

    /// The template as a graph file writes it (references by their absolute keys).
    public var written: JSON {
        switch self {
        case let .literal(json): return json
        case let .reference(r):
            if r.select.tokens.isEmpty { return ["$from": .string(r.node)] }
            return ["$from": .string(r.node), "select": .string(r.select.description)]
        case let .array(items): return .array(items.map(\.written))
        case let .object(members): return .object(JSONObject(members.map { ($0.key, $0.value.written) }))
        case let .item(pointer): return ["$item": .string(pointer.description)]
        case .index: return ["$index": true]
        }
    }

    /// A template from its written form, as `written` gives it (references already resolved and
    /// validated: this only reads the shape back).
    public init(written json: JSON) {
        switch json {
        case let .array(items):
            let templates = items.map(Template.init(written:))
            self = templates.allSatisfy(\.isLiteral) ? .literal(json) : .array(templates)
        case let .object(members):
            if case let .string(node)? = members["$from"] {
                let select = members["select"]?.stringValue.flatMap { try? JSONPointer(parsing: $0) } ?? JSONPointer(tokens: [])
                self = .reference(Reference(node: node, select: select))
            } else if case let .string(pointer)? = members["$item"] {
                self = .item((try? JSONPointer(parsing: pointer)) ?? JSONPointer(tokens: []))
            } else if members["$index"] == true, members.count == 1 {
                self = .index
            } else {
                let templates = members.members.map { TemplateMember(key: $0.key, value: Template(written: $0.value)) }
                self = templates.allSatisfy(\.value.isLiteral) ? .literal(json) : .object(templates)
            }
        default:
            self = .literal(json)
        }
    }

    /// True if `written` reads back as this template through `init(written:)`: false when a literal
    /// holds an object that looks like a reference (`$from`, `$item`, `$index`), such as a map element
    /// taken from a procedure's output, which the written form cannot tell from a real one.
    public var writtenReadsBack: Bool {
        func plain(_ json: JSON) -> Bool {
            switch json {
            case let .array(items): return items.allSatisfy(plain)
            case let .object(members):
                return members["$from"] == nil && members["$item"] == nil && members["$index"] == nil
                    && members.members.allSatisfy { plain($0.value) }
            default: return true
            }
        }
        switch self {
        case let .literal(json): return plain(json)
        case .reference, .item, .index: return true
        case let .array(items): return items.allSatisfy(\.writtenReadsBack)
        case let .object(members): return members.allSatisfy(\.value.writtenReadsBack)
        }
    }

    var isLiteral: Bool {
        if case .literal = self { return true }
        return false
    }

    /// The template of one map child: `$item` and `$index` replaced by the element and its index.
    /// A `$item` pointer with no value in the element throws.
    public func substituting(item: JSON, index: Int) throws(TemplateError) -> Template {
        switch self {
        case .literal, .reference: return self
        case .index: return .literal(.int(Int64(index)))
        case let .item(pointer):
            do { return .literal(try pointer.resolve(in: item)) } catch {
                throw TemplateError(item: pointer, index: index, reason: error.reason)
            }
        case let .array(items):
            var out: [Template] = []
            for t in items { out.append(try t.substituting(item: item, index: index)) }
            return .array(out)
        case let .object(members):
            var out: [TemplateMember] = []
            for m in members { out.append(TemplateMember(key: m.key, value: try m.value.substituting(item: item, index: index))) }
            return .object(out)
        }
    }
}
