/// The unkeyed container of a `ProbeDecoder`: an array of one element, so its element type
/// is probed once; a type that reads more elements than that still gets values.
struct UnkeyedProbeContainer: UnkeyedDecodingContainer {
    let items: ProbeSlot
    let depth: Int
    var codingPath: [CodingKey]
    private(set) var currentIndex = 0

    init(items: ProbeSlot, depth: Int, codingPath: [CodingKey]) {
        self.items = items
        self.depth = depth
        self.codingPath = codingPath
    }

    var count: Int? { 1 }
    var isAtEnd: Bool { currentIndex >= 1 }

    /// Where element `currentIndex` is recorded: the first is the array's element shape; a
    /// later one (a tuple-like type) is probed too, but only so that it gets a value.
    private mutating func next() -> ProbeSlot {
        defer { currentIndex += 1 }
        return currentIndex == 0 ? items : ProbeSlot()
    }

    mutating func decodeNil() throws -> Bool {
        if currentIndex == 0 { items.nullable = true }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try SchemaProbe.value(T.self, into: next(), depth: depth + 1)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let slot = next()
        slot.becomeObject()
        return KeyedDecodingContainer(KeyedProbeContainer<NestedKey>(slot: slot, depth: depth + 1, codingPath: codingPath))
    }

    mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer {
        UnkeyedProbeContainer(items: next().elements(), depth: depth + 1, codingPath: codingPath)
    }

    mutating func superDecoder() throws -> Decoder { ProbeDecoder(slot: next(), depth: depth + 1, codingPath: codingPath) }
}
