/// Reads a message through `Codable`, member by member as its description asks for them: the
/// reader of messages `WireReader` leaves alone, whose errors name the member that is wrong.
struct WireDecoding: WireCoder {
    private let container: KeyedDecodingContainer<WireKey>
    /// What the message is called in errors ("task message", "report").
    private let what: String

    init(_ decoder: Decoder, what: String) throws {
        container = try decoder.container(keyedBy: WireKey.self)
        self.what = what
    }

    mutating func required<V: WireValue>(_ name: StaticString, _ value: inout V) throws {
        value = try V.decodeWire(from: container, forKey: WireKey(name), required: true)!
    }

    mutating func member<V: WireValue>(_ name: StaticString, _ value: inout V?, required: Bool) throws {
        value = try V.decodeWire(from: container, forKey: WireKey(name), required: required)
    }

    mutating func tolerated<V: WireValue>(_ name: StaticString, _ value: inout V?) throws {
        value = (try? V.decodeWire(from: container, forKey: WireKey(name), required: false)) ?? nil
    }

    mutating func version() throws {
        let v = try container.decode(Int.self, forKey: WireKey("v"))
        guard v == WireFormat.version else {
            throw MessageError("\(what) has version \(v); this build of Baton reads version \(WireFormat.version) only")
        }
    }
}
