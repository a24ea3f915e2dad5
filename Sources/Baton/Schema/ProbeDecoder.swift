/// A `Decoder` that hands a type plausible values for whatever it asks and records what it
/// asked into a `ProbeSlot` (see `TypeSchema.derived(from:)`).
struct ProbeDecoder: Decoder {
    let slot: ProbeSlot
    let depth: Int
    var codingPath: [CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        slot.becomeObject()
        return KeyedDecodingContainer(KeyedProbeContainer<Key>(slot: slot, depth: depth, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        UnkeyedProbeContainer(items: slot.elements(), depth: depth, codingPath: codingPath)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        SingleValueProbeContainer(slot: slot, depth: depth, codingPath: codingPath)
    }
}
