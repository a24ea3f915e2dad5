import Baton
import Yams

/// Turns a composed YAML node into `JSON`, recording where each value was written.
struct YAMLConverter {
    let maxDepth: Int
    /// JSON bytes the document may still expand to (an estimate: scalars, keys and punctuation).
    var budget: Int
    var marks: [String: YAMLMark] = [:]
    private let limit: Int

    init(maxDepth: Int, budget: Int) {
        self.maxDepth = maxDepth
        self.budget = budget
        self.limit = budget
    }

    private static let core = "tag:yaml.org,2002:"

    mutating func convert(_ node: Node, path: [String], depth: Int) throws(YAMLError) -> JSON {
        let mark = Self.mark(node)
        if depth > maxDepth, node.scalar == nil { throw YAMLError(mark: mark, message: "nesting deeper than \(maxDepth) levels") }
        try spend(2, at: mark)
        switch node {
        case let .scalar(scalar):
            return try Self.scalar(scalar.string, tag: node.tag.rawValue, at: mark, spending: &self)
        case let .sequence(sequence):
            try Self.expectTag(node.tag.rawValue, Tag.Name.seq.rawValue, kind: "sequence", at: mark)
            var items: [JSON] = []
            items.reserveCapacity(sequence.count)
            for (i, item) in sequence.enumerated() {
                let itemPath = path + [String(i)]
                record(itemPath, Self.mark(item))
                items.append(try convert(item, path: itemPath, depth: depth + 1))
            }
            return .array(items)
        case let .mapping(mapping):
            try Self.expectTag(node.tag.rawValue, Tag.Name.map.rawValue, kind: "mapping", at: mark)
            return try object(mapping, path: path, depth: depth)
        case .alias:
            throw YAMLError(mark: mark, message: "an alias that was not resolved")
        }
    }

    private mutating func object(_ mapping: Node.Mapping, path: [String], depth: Int) throws(YAMLError) -> JSON {
        // Keys written in this mapping win over merged ones, wherever they stand.
        var written: Set<String> = []
        for (key, _) in mapping where key.tag.rawValue != Tag.Name.merge.rawValue {
            if let s = key.scalar, key.tag.rawValue == Tag.Name.str.rawValue { written.insert(s.string) }
        }
        // An array and a set, not JSONObject's subscript, which searches: a mapping may hold 100,000 nodes.
        var members: [(key: String, value: JSON)] = []
        var present: Set<String> = []
        for (key, value) in mapping {
            let keyMark = Self.mark(key)
            if key.tag.rawValue == Tag.Name.merge.rawValue {
                for (mergedKey, mergedValue) in try merged(value, path: path, depth: depth)
                where !written.contains(mergedKey) && !present.contains(mergedKey) {
                    members.append((mergedKey, mergedValue))
                    present.insert(mergedKey)
                }
                continue
            }
            let name = try Self.keyName(key, at: keyMark)
            try spend(name.utf8.count + 3, at: keyMark)
            let memberPath = path + [name]
            record(memberPath, keyMark)
            members.append((name, try convert(value, path: memberPath, depth: depth + 1)))
            present.insert(name)
        }
        return .object(JSONObject(members))
    }

    /// The members a merge key (`<<: *base` or `<<: [*a, *b]`) brings; earlier mappings win.
    private mutating func merged(_ value: Node, path: [String], depth: Int) throws(YAMLError) -> [(key: String, value: JSON)] {
        let sources: [Node]
        switch value {
        case .mapping: sources = [value]
        case let .sequence(items): sources = Array(items)
        default: throw YAMLError(mark: Self.mark(value), message: "a merge key (<<) needs a mapping or a list of mappings")
        }
        var result: [(key: String, value: JSON)] = []
        var present: Set<String> = []
        for source in sources {
            guard case let .mapping(mapping) = source else {
                throw YAMLError(mark: Self.mark(source), message: "a merge key (<<) needs a mapping or a list of mappings")
            }
            guard case let .object(members) = try object(mapping, path: path, depth: depth) else { continue }
            for (key, member) in members where present.insert(key).inserted { result.append((key, member)) }
        }
        return result
    }

    private static func keyName(_ key: Node, at mark: YAMLMark?) throws(YAMLError) -> String {
        guard case let .scalar(scalar) = key else {
            throw YAMLError(mark: mark, message: "a mapping key must be a string, found a \(key.mapping != nil ? "mapping" : "sequence")")
        }
        let tag = key.tag.rawValue
        if tag == Tag.Name.str.rawValue { return scalar.string }
        let kind = Self.kindName(tag)
        throw YAMLError(
            mark: mark, message: "mapping key '\(scalar.string)' is \(kind), not a string; JSON keys are strings (quote it: \"\(scalar.string)\")")
    }

    private static func scalar(
        _ text: String, tag: String, at mark: YAMLMark?, spending converter: inout YAMLConverter
    )
        throws(YAMLError) -> JSON
    {
        switch tag {
        case Tag.Name.str.rawValue:
            try converter.spend(text.utf8.count, at: mark)
            return .string(text)
        case Tag.Name.null.rawValue:
            return .null
        case Tag.Name.bool.rawValue:
            switch text.lowercased() {
            case "true": return .bool(true)
            case "false": return .bool(false)
            default: throw YAMLError(mark: mark, message: "'\(text)' is not a boolean (true or false)")
            }
        case Tag.Name.int.rawValue:
            try converter.spend(text.utf8.count, at: mark)
            return try integer(text, at: mark)
        case Tag.Name.float.rawValue:
            try converter.spend(text.utf8.count, at: mark)
            let lowered = text.lowercased()
            if lowered.hasSuffix(".inf") || lowered == ".nan" {
                throw YAMLError(mark: mark, message: "'\(text)' has no JSON meaning (JSON numbers are finite)")
            }
            guard let d = Double(text), d.isFinite else { throw YAMLError(mark: mark, message: "'\(text)' is not a number JSON can hold") }
            return .double(d)
        default:
            throw YAMLError(mark: mark, message: "the YAML tag \(shortTag(tag)) has no JSON meaning")
        }
    }

    private static func integer(_ text: String, at mark: YAMLMark?) throws(YAMLError) -> JSON {
        var digits = Substring(text)
        var negative = false
        if let sign = digits.first, sign == "-" || sign == "+" {
            negative = sign == "-"
            digits = digits.dropFirst()
        }
        var radix = 10
        if digits.hasPrefix("0x") {
            radix = 16; digits = digits.dropFirst(2)
        } else if digits.hasPrefix("0o") {
            radix = 8; digits = digits.dropFirst(2)
        }
        if let magnitude = UInt64(digits, radix: radix) {
            if negative, magnitude <= UInt64(Int64.max) + 1 { return .int(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)) }
            if !negative, let i = Int64(exactly: magnitude) { return .int(i) }
        }
        // As the JSON parser does: a decimal integer too large for 64 bits is a double.
        if radix == 10, let d = Double(text), d.isFinite { return .double(d) }
        throw YAMLError(mark: mark, message: "'\(text)' is not an integer that fits in 64 bits")
    }

    private static func expectTag(_ tag: String, _ expected: String, kind: String, at mark: YAMLMark?) throws(YAMLError) {
        if tag != expected { throw YAMLError(mark: mark, message: "the YAML tag \(shortTag(tag)) on a \(kind) has no JSON meaning") }
    }

    private static func shortTag(_ tag: String) -> String { tag.hasPrefix(core) ? "!!" + tag.dropFirst(core.count) : tag }

    private static func kindName(_ tag: String) -> String {
        switch tag {
        case Tag.Name.int.rawValue, Tag.Name.float.rawValue: return "a number"
        case Tag.Name.bool.rawValue: return "a boolean"
        case Tag.Name.null.rawValue: return "null"
        default: return "tagged \(shortTag(tag))"
        }
    }

    private static func mark(_ node: Node) -> YAMLMark? { node.mark.map { YAMLMark(line: $0.line, column: $0.column) } }

    mutating func record(_ path: [String], _ mark: YAMLMark?) {
        if let mark { marks[JSONPointer(tokens: path).description] = mark }
    }

    mutating func spend(_ bytes: Int, at mark: YAMLMark?) throws(YAMLError) {
        budget -= bytes
        if budget < 0 {
            throw YAMLError(
                mark: mark,
                message: "the document expands to more than \(limit) bytes of JSON (BATON_MAX_GRAPH_BYTES); do aliases repeat a large part?")
        }
    }
}
