import Foundation

extension TypeSchema {
    /// The shape `type` decodes from, found by letting it decode itself from a `ProbeDecoder`
    /// that records which keys it reads with which types: `decode` makes a member required,
    /// `decodeIfPresent` (an `Optional`) optional; an array's element is probed once.
    /// Baton's `JSON` is `any`; a type that throws while probed (or nests too deep) is `any` too.
    public static func derived<T: Decodable>(from type: T.Type) -> TypeSchema {
        let slot = ProbeSlot()
        do {
            _ = try SchemaProbe.value(T.self, into: slot, depth: 0)
            return slot.schema
        } catch {
            return .any
        }
    }
}

/// The probing behind `TypeSchema.derived(from:)`: makes a value of any `Decodable` type
/// while recording its shape into a `ProbeSlot`.
enum SchemaProbe {
    /// Deeper than this, a (recursive) type is `any`.
    static let maximumDepth = 24

    struct TooDeep: Error {}

    /// A value of `T`, recording its shape into `slot`.
    static func value<T: Decodable>(_ type: T.Type, into slot: ProbeSlot, depth: Int) throws -> T {
        guard depth <= maximumDepth else {
            slot.set(.any)
            throw TooDeep()
        }
        if let found = known(T.self) {
            slot.set(found.schema)
            return found.value as! T
        }
        if let collection = T.self as? any ProbedCollection.Type {
            return try collection.probe(into: slot, depth: depth) as! T
        }
        if let enumeration = T.self as? any (RawRepresentable & CaseIterable).Type, let found = cases(of: enumeration) {
            slot.set(found.schema)
            return found.value as! T
        }
        return try T(from: ProbeDecoder(slot: slot, depth: depth))
    }

    /// Types whose shape is known without probing, with a value of each. `Date` is a number, since
    /// Baton decodes inputs with `JSONDecoder`'s default strategies (seconds since 2001); `Data` is a
    /// base64 string.
    private static func known(_ type: Any.Type) -> (schema: TypeSchema, value: Any)? {
        switch type {
        case is JSON.Type: return (.any, JSON.null)
        case is String.Type: return (.string, "")
        case is Bool.Type: return (.boolean, false)
        case is Int.Type: return (.integer, 0 as Int)
        case is Int8.Type: return (.integer, 0 as Int8)
        case is Int16.Type: return (.integer, 0 as Int16)
        case is Int32.Type: return (.integer, 0 as Int32)
        case is Int64.Type: return (.integer, 0 as Int64)
        case is UInt.Type: return (.integer, 0 as UInt)
        case is UInt8.Type: return (.integer, 0 as UInt8)
        case is UInt16.Type: return (.integer, 0 as UInt16)
        case is UInt32.Type: return (.integer, 0 as UInt32)
        case is UInt64.Type: return (.integer, 0 as UInt64)
        case is Double.Type: return (.number, 0 as Double)
        case is Float.Type: return (.number, 0 as Float)
        case is Decimal.Type: return (.number, Decimal(0))
        case is Date.Type: return (.number, Date(timeIntervalSinceReferenceDate: 0))
        case is URL.Type: return (.string, URL(string: "about:blank")!)
        case is Data.Type: return (.string, Data())
        case is UUID.Type: return (.string, UUID())
        default: return nil
        }
    }

    /// A string (or integer) enum listing its raw values, with its first case.
    private static func cases<E: RawRepresentable & CaseIterable>(of type: E.Type) -> (schema: TypeSchema, value: Any)? {
        guard let first = E.allCases.first else { return nil }
        let raw = E.allCases.map(\.rawValue)
        if let strings = raw as? [String] { return (.string(values: strings), first) }
        if raw.allSatisfy({ $0 is any BinaryInteger }) { return (.integer, first) }
        return nil
    }
}

/// Collections probed by their element type, so that a failing element still leaves a usable
/// (empty) collection and the rest of the type is probed.
protocol ProbedCollection {
    static func probe(into slot: ProbeSlot, depth: Int) throws -> Self
}

extension Array: ProbedCollection where Element: Decodable {
    static func probe(into slot: ProbeSlot, depth: Int) throws -> [Element] {
        let items = slot.elements()
        do {
            return [try SchemaProbe.value(Element.self, into: items, depth: depth + 1)]
        } catch {
            items.set(.any)
            return []
        }
    }
}

extension Optional: ProbedCollection where Wrapped: Decodable {
    static func probe(into slot: ProbeSlot, depth: Int) throws -> Wrapped? {
        slot.nullable = true
        do {
            return try SchemaProbe.value(Wrapped.self, into: slot, depth: depth + 1)
        } catch {
            slot.set(.any)
            return nil
        }
    }
}

extension Dictionary: ProbedCollection where Key == String, Value: Decodable {
    static func probe(into slot: ProbeSlot, depth: Int) throws -> [String: Value] {
        let values = ProbeSlot()
        do { _ = try SchemaProbe.value(Value.self, into: values, depth: depth + 1) } catch { values.set(.any) }
        slot.set(.dictionary(of: values.schema))
        return [:]
    }
}
