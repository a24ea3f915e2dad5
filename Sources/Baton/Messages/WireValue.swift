import Foundation

/// What a member of a wire message can hold. Each of the four coders that follow a message's
/// description (`WireWriter`, `WireReader`, and `Codable` through `WireEncoding` and `WireDecoding`)
/// writes or reads it through these, so the direct path and `Codable` agree on it.
///
/// A type that gives only its `Codable` conformance (`[TaskRef]`, a heartbeat's schemas) is written
/// and read directly through `JSON` and Foundation's coders: slower, and only in rare messages.
protocol WireValue: Codable {
    /// Appends the value's wire text (see `JSON.writeWire`): the bytes `JSONEncoder` would write.
    func writeWire(into out: inout [UInt8]) throws

    /// The value a parsed member holds, or nil if it holds something else: the reader then leaves
    /// the message to `Codable`, which says what is wrong (or reads what it can convert).
    init?(wire json: JSON)

    /// Encodes the value through `Codable` (its own conformance, but for `Date`).
    func encodeWire<K: CodingKey>(to container: inout KeyedEncodingContainer<K>, forKey key: K) throws

    /// Decodes a member through `Codable`: required (present, of this type) or, if not, nil when absent or null.
    static func decodeWire<K: CodingKey>(from container: KeyedDecodingContainer<K>, forKey key: K, required: Bool) throws -> Self?
}

extension WireValue {
    func writeWire(into out: inout [UInt8]) throws { try JSON(encoding: self).writeWire(into: &out) }

    init?(wire json: JSON) {
        guard let value = try? json.decode(as: Self.self) else { return nil }
        self = value
    }

    func encodeWire<K: CodingKey>(to container: inout KeyedEncodingContainer<K>, forKey key: K) throws {
        try container.encode(self, forKey: key)
    }

    static func decodeWire<K: CodingKey>(from container: KeyedDecodingContainer<K>, forKey key: K, required: Bool) throws -> Self? {
        required ? try container.decode(Self.self, forKey: key) : try container.decodeIfPresent(Self.self, forKey: key)
    }
}

extension String: WireValue {
    func writeWire(into out: inout [UInt8]) { JSON.writeString(self, into: &out, shortEscapes: true) }

    init?(wire json: JSON) {
        guard case let .string(s) = json else { return nil }
        self = s
    }
}

extension Int: WireValue {
    func writeWire(into out: inout [UInt8]) { out.append(contentsOf: String(self).utf8) }

    init?(wire json: JSON) {
        guard case let .int(i) = json, let value = Int(exactly: i) else { return nil }
        self = value
    }
}

extension Double: WireValue {
    func writeWire(into out: inout [UInt8]) { JSON.writeWire(self, into: &out) }

    init?(wire json: JSON) {
        switch json {
        case let .int(i): self = Double(i)
        case let .double(d): self = d
        default: return nil
        }
    }
}

extension Bool: WireValue {
    func writeWire(into out: inout [UInt8]) { JSON.bool(self).writeWire(into: &out) }

    init?(wire json: JSON) {
        guard case let .bool(b) = json else { return nil }
        self = b
    }
}

extension JSON: WireValue {
    init?(wire json: JSON) { self = json }
}

/// A time on the wire: seconds since 1970 (not `Date`'s own `Codable` form, seconds since 2001).
extension Date: WireValue {
    func writeWire(into out: inout [UInt8]) { timeIntervalSince1970.writeWire(into: &out) }

    init?(wire json: JSON) {
        guard let seconds = Double(wire: json) else { return nil }
        self.init(timeIntervalSince1970: seconds)
    }

    func encodeWire<K: CodingKey>(to container: inout KeyedEncodingContainer<K>, forKey key: K) throws {
        try container.encode(timeIntervalSince1970, forKey: key)
    }

    static func decodeWire<K: CodingKey>(from container: KeyedDecodingContainer<K>, forKey key: K, required: Bool) throws -> Date? {
        try Double.decodeWire(from: container, forKey: key, required: required).map(Date.init(timeIntervalSince1970:))
    }
}

/// Enumerations written as their names.
extension WireValue where Self: RawRepresentable, RawValue == String {
    func writeWire(into out: inout [UInt8]) { rawValue.writeWire(into: &out) }

    init?(wire json: JSON) {
        guard case let .string(s) = json, let value = Self(rawValue: s) else { return nil }
        self = value
    }
}

extension TaskPhase: WireValue {}
extension ReportMessage.Kind: WireValue {}
extension Array: WireValue where Element: Codable {}
extension Dictionary: WireValue where Key == String, Value: Codable {}
