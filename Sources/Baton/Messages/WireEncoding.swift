/// Writes a message through `Codable`, member by member as its description gives them (the
/// encoder sorts them; `WireWriter` writes the same bytes directly).
struct WireEncoding: WireCoder {
    private var container: KeyedEncodingContainer<WireKey>

    init(_ encoder: Encoder) { container = encoder.container(keyedBy: WireKey.self) }

    mutating func required<V: WireValue>(_ name: StaticString, _ value: inout V) throws {
        try value.encodeWire(to: &container, forKey: WireKey(name))
    }

    mutating func member<V: WireValue>(_ name: StaticString, _ value: inout V?, required: Bool) throws {
        if let value { try value.encodeWire(to: &container, forKey: WireKey(name)) }
    }

    mutating func tolerated<V: WireValue>(_ name: StaticString, _ value: inout V?) throws {
        try member(name, &value, required: false)
    }

    mutating func version() throws { try container.encode(WireFormat.version, forKey: WireKey("v")) }
}
