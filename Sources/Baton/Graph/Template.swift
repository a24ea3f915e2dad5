/// A node's input as written in the graph: JSON in which `$from` objects stand
/// for values injected at run time.
public indirect enum Template: Sendable, Hashable, Codable {
    case literal(JSON)
    case reference(Reference)
    case array([Template])
    case object([TemplateMember])

    /// Every reference in the template, in document order.
    public var references: [Reference] {
        switch self {
        case .literal: return []
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
        }
    }
}
