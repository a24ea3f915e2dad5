/// The keyed container of a `ProbeDecoder`: every key is "present"; `decode` records a required
/// member, `decodeIfPresent` (or a `contains` check first) an optional one.
struct KeyedProbeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let slot: ProbeSlot
    let depth: Int
    var codingPath: [CodingKey]
    /// Unknown: a dictionary-like type that iterates its keys sees none.
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool {
        slot.markConditional(key.stringValue)
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        slot.member(key.stringValue, required: false).nullable = true
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try generic(type, key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let member = slot.member(key.stringValue, required: false)
        do {
            return try SchemaProbe.value(T.self, into: member, depth: depth + 1)
        } catch {
            member.set(.any)
            return nil
        }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try generic(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try generic(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try generic(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try generic(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try generic(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try generic(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try generic(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try generic(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try generic(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try generic(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try generic(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try generic(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try generic(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try generic(type, key) }

    private func generic<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try SchemaProbe.value(T.self, into: slot.member(key.stringValue, required: true), depth: depth + 1)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let member = slot.member(key.stringValue, required: true)
        member.becomeObject()
        return KeyedDecodingContainer(KeyedProbeContainer<NestedKey>(slot: member, depth: depth + 1, codingPath: codingPath + [key]))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
        let member = slot.member(key.stringValue, required: true)
        return UnkeyedProbeContainer(items: member.elements(), depth: depth + 1, codingPath: codingPath + [key])
    }

    func superDecoder() throws -> Decoder { ProbeDecoder(slot: slot, depth: depth, codingPath: codingPath) }

    func superDecoder(forKey key: Key) throws -> Decoder {
        ProbeDecoder(slot: slot.member(key.stringValue, required: true), depth: depth + 1, codingPath: codingPath + [key])
    }
}
