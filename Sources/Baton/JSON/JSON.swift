import Foundation

/// A JSON value. Objects keep their members in document order, so what a user
/// wrote is what they see again; equality of objects ignores that order.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    /// A number with no fraction or exponent that fits in 64 bits.
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object(JSONObject)
}

/// The members of a JSON object, in document order.
public struct JSONObject: Sendable, Hashable, Sequence {
    public private(set) var members: [(key: String, value: JSON)]
    /// Positions by key, for objects large enough that a search would cost (a graph's `nodes`):
    /// lookups stay constant-time, so reading every member of a 100,000-member object is linear.
    private var index: [ExactKey: Int]?
    /// Below this many members a search is cheaper than hashing.
    static let indexThreshold = 16

    public init(_ members: [(key: String, value: JSON)] = []) {
        self.members = members
        if members.count >= Self.indexThreshold { buildIndex() }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    public subscript(key: String) -> JSON? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    index = nil
                    if members.count >= Self.indexThreshold { buildIndex() }
                }
            } else if let newValue {
                members.append((key, newValue))
                if index != nil {
                    index![ExactKey(key)] = members.count - 1
                } else if members.count >= Self.indexThreshold {
                    buildIndex()
                }
            }
        }
    }

    private func position(of key: String) -> Int? {
        if let index { return index[ExactKey(key)] }
        return members.firstIndex(where: { ExactKey.same($0.key, key) })
    }

    private mutating func buildIndex() {
        var built: [ExactKey: Int] = [:]
        built.reserveCapacity(members.count)
        // The first of equal keys wins, as a search from the start would find it.
        for (position, member) in members.enumerated().reversed() { built[ExactKey(member.key)] = position }
        index = built
    }

    public func makeIterator() -> IndexingIterator<[(key: String, value: JSON)]> { members.makeIterator() }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        let right = Dictionary(rhs.members, uniquingKeysWith: { _, last in last })
        for (key, value) in lhs.members where right[key] != value { return false }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for key in keys.sorted() { hasher.combine(key); hasher.combine(self[key]) }
    }
}

/// A member name compared as JSON compares names: scalar by scalar (Swift's `String ==`
/// would also equate differently normalized names, which JSON keeps apart).
struct ExactKey: Hashable, Sendable {
    let text: String
    init(_ text: String) { self.text = text }
    static func == (a: ExactKey, b: ExactKey) -> Bool { same(a.text, b.text) }

    /// Whether two names have the same UTF-8 bytes (compared at once, not byte by byte through an iterator).
    @inline(__always)
    static func same(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }
    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

extension JSON: Hashable {
    public static func == (lhs: JSON, rhs: JSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.int(a), .double(b)), let (.double(b), .int(a)): return Int64(exactly: b) == a
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case let .bool(b): hasher.combine(b)
        case let .int(i): hasher.combine(i)
        case let .double(d): if let i = Int64(exactly: d) { hasher.combine(i) } else { hasher.combine(d) }
        case let .string(s): hasher.combine(s)
        case let .array(a): hasher.combine(a)
        case let .object(o): hasher.combine(o)
        }
    }
}

extension JSON {
    public init(_ members: KeyValuePairs<String, JSON>) {
        self = .object(JSONObject(members.map { ($0.key, $0.value) }))
    }

    public var objectValue: JSONObject? { if case let .object(o) = self { return o }; return nil }
    public var arrayValue: [JSON]? { if case let .array(a) = self { return a }; return nil }
    public var stringValue: String? { if case let .string(s) = self { return s }; return nil }
    public var boolValue: Bool? { if case let .bool(b) = self { return b }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// The value as a Double, for either kind of number.
    public var numberValue: Double? {
        switch self {
        case let .int(i): return Double(i)
        case let .double(d): return d
        default: return nil
        }
    }

    /// The value as an integer, if it is a number with no fractional part.
    public var intValue: Int? {
        switch self {
        case let .int(i): return Int(exactly: i)
        case let .double(d): return Int(exactly: d)
        default: return nil
        }
    }

    /// The member named `key`, if this is an object that has it.
    public subscript(key: String) -> JSON? { objectValue?[key] }

    /// A short name for the kind of value, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension JSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(JSONObject(elements.map { ($0.0, $0.1) }))
    }
}
