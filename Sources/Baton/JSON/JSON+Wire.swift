import Foundation

/// The JSON text of Baton's wire messages: the bytes Foundation's `JSONEncoder` writes with sorted
/// keys, so a message written directly and one written through `Codable` are the same bytes.
/// Objects' members are sorted by the UTF-8 bytes of their names, at every depth; a whole double
/// loses its ".0" (`30`, not `30.0`); backspace and form feed are escaped `\b` and `\f`.
/// (`serialized()` keeps document order and writes `30.0`: what users see is unchanged.)
extension JSON {
    /// Appends the value's wire text.
    func writeWire(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case let .bool(b): out.append(contentsOf: b ? [0x74, 0x72, 0x75, 0x65] : [0x66, 0x61, 0x6C, 0x73, 0x65])
        case let .int(i): out.append(contentsOf: String(i).utf8)
        case let .double(d): JSON.writeWire(d, into: &out)
        case let .string(s): JSON.writeString(s, into: &out, shortEscapes: true)
        case let .array(a):
            out.append(UInt8(ascii: "["))
            for (i, element) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.writeWire(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(o):
            out.append(UInt8(ascii: "{"))
            o.members.withUnsafeBufferPointer { members in
                if JSON.inWireOrder(members) {
                    for i in members.indices { JSON.writeWire(members[i], first: i == 0, into: &out) }
                    return
                }
                // The members' positions, sorted in place (no array to allocate for each object).
                withUnsafeTemporaryAllocation(of: Int.self, capacity: members.count) { order in
                    for i in order.indices { order.initializeElement(at: i, to: i) }
                    if order.count <= 16 {
                        for i in 1..<order.count {
                            let position = order[i]
                            var j = i
                            while j > 0, JSON.wireOrder(members[position].key, members[order[j - 1]].key) {
                                order[j] = order[j - 1]
                                j -= 1
                            }
                            order[j] = position
                        }
                    } else {
                        var order = order
                        order.sort { JSON.wireOrder(members[$0].key, members[$1].key) }
                    }
                    for i in order.indices { JSON.writeWire(members[order[i]], first: i == 0, into: &out) }
                }
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeWire(_ member: (key: String, value: JSON), first: Bool, into out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        writeString(member.key, into: &out, shortEscapes: true)
        out.append(UInt8(ascii: ":"))
        member.value.writeWire(into: &out)
    }

    /// A double as `JSONEncoder` writes it: Swift's shortest text, without a trailing ".0".
    /// (Not finite: `null`; no message holds one, since the parser refuses them.)
    static func writeWire(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else {
            out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
            return
        }
        var text = d.description
        text.withUTF8 { bytes in
            let whole = bytes.count > 2 && bytes[bytes.count - 2] == UInt8(ascii: ".") && bytes[bytes.count - 1] == UInt8(ascii: "0")
            out.append(contentsOf: whole ? UnsafeBufferPointer(rebasing: bytes.dropLast(2)) : bytes)
        }
    }

    /// Whether name `a` comes before name `b` on the wire: by their UTF-8 bytes (which is the order of
    /// their Unicode scalars), as Foundation sorts keys; not by `String`'s `<`, which compares normalized forms.
    static func wireOrder(_ a: String, _ b: String) -> Bool {
        let ordered = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in
                let common = min(x.count, y.count)
                if common > 0 {
                    let c = memcmp(x.baseAddress!, y.baseAddress!, common)
                    if c != 0 { return c < 0 }
                }
                return x.count < y.count
            }
        }
        return (ordered ?? nil) ?? a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    private static func inWireOrder(_ members: UnsafeBufferPointer<(key: String, value: JSON)>) -> Bool {
        var i = 1
        while i < members.count {
            if !wireOrder(members[i - 1].key, members[i].key) { return false }
            i += 1
        }
        return true
    }
}
