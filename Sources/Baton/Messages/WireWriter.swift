/// A message body written member by member, for the messages Baton writes without `Codable`
/// (`TaskDispatch`, `ReportMessage`): the caller gives the members in the order `Codable` would.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Starts a member: `{"name":` for the first, `,"name":` after.
    mutating func member(_ name: StaticString) {
        bytes.append(bytes.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    mutating func string(_ name: StaticString, _ value: String) {
        member(name)
        JSON.writeString(value, into: &bytes)
    }

    mutating func int(_ name: StaticString, _ value: Int) {
        member(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func json(_ name: StaticString, _ value: JSON) {
        member(name)
        value.write(into: &bytes, sortedKeys: false)
    }

    /// A member whose value is JSON text already (an output as its procedure encoded it).
    mutating func encoded(_ name: StaticString, _ value: [UInt8]) {
        member(name)
        bytes.append(contentsOf: value)
    }

    /// The body, closed.
    consuming func finished() -> [UInt8] {
        if bytes.isEmpty { bytes.append(UInt8(ascii: "{")) }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
