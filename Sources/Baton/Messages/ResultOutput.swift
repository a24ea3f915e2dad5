/// A result's output (or the graph it spawned) as a report member: parsed, or on the sending side
/// as the procedure encoded it, which is spliced in as it is rather than serialized again.
enum ResultOutput: WireValue {
    case json(JSON)
    case encoded(EncodedJSON)

    func writeWire(into out: inout [UInt8]) {
        switch self {
        case let .json(value): value.writeWire(into: &out)
        case let .encoded(document): out.append(contentsOf: document.bytes)
        }
    }

    init?(wire json: JSON) { self = .json(json) }

    init(from decoder: Decoder) throws { self = .json(try JSON(from: decoder)) }

    func encode(to encoder: Encoder) throws {
        switch self {
        case let .json(value): try value.encode(to: encoder)
        case let .encoded(document): try document.decoded().encode(to: encoder)
        }
    }
}
