/// Writes a message body directly, member by member as its description gives them: the bytes
/// `JSONEncoder` with sorted keys would write, without its cost (several microseconds a message).
/// The description lists members sorted by name, which debug builds check here.
struct WireWriter: WireCoder {
    private(set) var bytes: [UInt8] = []
    #if DEBUG
        private var previous: StaticString?
    #endif

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func required<V: WireValue>(_ name: StaticString, _ value: inout V) throws {
        start(name)
        try value.writeWire(into: &bytes)
    }

    mutating func member<V: WireValue>(_ name: StaticString, _ value: inout V?, required: Bool) throws {
        guard let value else { return }
        start(name)
        try value.writeWire(into: &bytes)
    }

    mutating func tolerated<V: WireValue>(_ name: StaticString, _ value: inout V?) throws {
        try member(name, &value, required: false)
    }

    mutating func version() throws {
        var version = WireFormat.version
        try required("v", &version)
    }

    /// Starts a member: `{"name":` for the first, `,"name":` after.
    private mutating func start(_ name: StaticString) {
        #if DEBUG
            if let previous {
                assert(JSON.wireOrder(previous.description, name.description), "wire members out of order: \(previous) before \(name)")
            }
            previous = name
        #endif
        bytes.append(bytes.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    /// The body, closed.
    consuming func finished() -> [UInt8] {
        if bytes.isEmpty { bytes.append(UInt8(ascii: "{")) }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
