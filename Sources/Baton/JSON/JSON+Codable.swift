import Foundation

extension JSON: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null; return }
        if let b = try? container.decode(Bool.self) { self = .bool(b); return }
        if let i = try? container.decode(Int64.self) { self = .int(i); return }
        if let d = try? container.decode(Double.self) { self = .double(d); return }
        if let s = try? container.decode(String.self) { self = .string(s); return }
        if let a = try? container.decode([JSON].self) { self = .array(a); return }
        if let o = try? container.decode([String: JSON].self) {
            self = .object(JSONObject(o.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
            return
        }
        throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(b): try container.encode(b)
        case let .int(i): try container.encode(i)
        case let .double(d): try container.encode(d)
        case let .string(s): try container.encode(s)
        case let .array(a): try container.encode(a)
        case let .object(o): try container.encode(Dictionary(o.members, uniquingKeysWith: { _, last in last }))
        }
    }
}

extension JSON {
    /// The JSON form of any `Encodable` value.
    public init<T: Encodable>(encoding value: T) throws {
        if let json = value as? JSON { self = json; return }
        let data = try JSONCoding.encoder.encode(value)
        self = try JSONParser.parse(Array(data))
    }

    /// Decodes this value as `T`, with the decoder's description of any mismatch.
    public func decode<T: Decodable>(as type: T.Type = T.self) throws -> T {
        if let json = self as? T { return json }
        return try JSONCoding.decoder.decode(T.self, from: Data(serializedBytes()))
    }
}

/// Shared coders configured the same way everywhere.
enum JSONCoding {
    static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }
    static var decoder: JSONDecoder { JSONDecoder() }
}

/// Turns a `DecodingError` into one line naming the field that is wrong.
public func describeDecodingError(_ error: Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    func path(_ codingPath: [CodingKey]) -> String {
        let p = codingPath.map { $0.intValue.map { "[\($0)]" } ?? "/\($0.stringValue)" }.joined()
        return p.isEmpty ? "the input" : "'\(p)'"
    }
    switch error {
    case let .typeMismatch(type, context):
        return "\(path(context.codingPath)): expected \(typeName(type))"
    case let .valueNotFound(type, context):
        return "\(path(context.codingPath)): expected \(typeName(type)), found null"
    case let .keyNotFound(key, context):
        return "\(path(context.codingPath + [key])): required field is missing"
    case let .dataCorrupted(context):
        return "\(path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
        return "\(error)"
    }
}

private func typeName(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: return "a string"
    case is Int.Type, is Int64.Type, is Int32.Type, is UInt.Type: return "an integer"
    case is Double.Type, is Float.Type: return "a number"
    case is Bool.Type: return "a boolean"
    default:
        let name = "\(type)"
        if name.hasPrefix("Array") { return "an array" }
        if name.hasPrefix("Dictionary") { return "an object" }
        return "a value of type \(name)"
    }
}
