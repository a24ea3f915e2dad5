extension JSON {
    /// Compact JSON text. With `sortedKeys`, object members are sorted by name,
    /// which gives one canonical text per value.
    public func serialized(sortedKeys: Bool = false) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(into: &out, sortedKeys: sortedKeys)
        return String(decoding: out, as: UTF8.self)
    }

    /// Compact JSON text as UTF-8 bytes.
    public func serializedBytes(sortedKeys: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        write(into: &out, sortedKeys: sortedKeys)
        return out
    }

    /// Human-friendly JSON text with two-space indentation.
    public func prettyPrinted(indent: Int = 0) -> String {
        let pad = String(repeating: "  ", count: indent)
        let inner = String(repeating: "  ", count: indent + 1)
        switch self {
        case let .array(a) where !a.isEmpty:
            return "[\n" + a.map { inner + $0.prettyPrinted(indent: indent + 1) }.joined(separator: ",\n") + "\n\(pad)]"
        case let .object(o) where !o.isEmpty:
            return "{\n"
                + o.members.map { inner + JSON.string($0.key).serialized() + ": " + $0.value.prettyPrinted(indent: indent + 1) }
                .joined(separator: ",\n") + "\n\(pad)}"
        default:
            return serialized()
        }
    }

    public func write(into out: inout [UInt8], sortedKeys: Bool) {
        switch self {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case let .bool(b): out.append(contentsOf: Array((b ? "true" : "false").utf8))
        case let .int(i): out.append(contentsOf: Array(String(i).utf8))
        case let .double(d): out.append(contentsOf: Array(JSON.format(d).utf8))
        case let .string(s): JSON.writeString(s, into: &out)
        case let .array(a):
            out.append(UInt8(ascii: "["))
            for (i, element) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out, sortedKeys: sortedKeys)
            }
            out.append(UInt8(ascii: "]"))
        case let .object(o):
            out.append(UInt8(ascii: "{"))
            let members = sortedKeys ? o.members.sorted { $0.key < $1.key } : o.members
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                member.value.write(into: &out, sortedKeys: sortedKeys)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func format(_ d: Double) -> String {
        if d.isNaN || d.isInfinite { return "null" }
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) + ".0" }
        return "\(d)"
    }

    /// `shortEscapes` writes backspace and form feed as `\b` and `\f` (as `JSONEncoder` does), not `\u0008` and `\u000c`.
    static func writeString(_ s: String, into out: inout [UInt8], shortEscapes: Bool = false) {
        var s = s
        s.withUTF8 { writeString(utf8: $0, into: &out, shortEscapes: shortEscapes) }
    }

    /// A string given as UTF-8 bytes, quoted and escaped.
    static func writeString<Bytes: Collection<UInt8>>(utf8 bytes: Bytes, into out: inout [UInt8], shortEscapes: Bool = false) {
        let written: Void? = bytes.withContiguousStorageIfAvailable { writeString(utf8: $0, into: &out, shortEscapes: shortEscapes) }
        if written == nil { Array(bytes).withUnsafeBufferPointer { writeString(utf8: $0, into: &out, shortEscapes: shortEscapes) } }
    }

    /// Runs of bytes that need no escape are appended whole (a string rarely has any that do).
    private static func writeString(utf8 bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], shortEscapes: Bool) {
        out.append(UInt8(ascii: "\""))
        var plain = 0
        for i in bytes.indices {
            let b = bytes[i]
            if b >= 0x20 && b != 0x22 && b != 0x5C { continue }
            if plain < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plain..<i])) }
            plain = i + 1
            switch b {
            case 0x22: out.append(0x5C); out.append(0x22)
            case 0x5C: out.append(0x5C); out.append(0x5C)
            case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
            case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
            case 0x08 where shortEscapes: out.append(0x5C); out.append(UInt8(ascii: "b"))
            case 0x0C where shortEscapes: out.append(0x5C); out.append(UInt8(ascii: "f"))
            default:
                let hex: StaticString = "0123456789abcdef"
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex.utf8Start[Int(b >> 4)], hex.utf8Start[Int(b & 0xF)]])
            }
        }
        if plain < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[plain...])) }
        out.append(UInt8(ascii: "\""))
    }
}

extension JSON: CustomStringConvertible {
    public var description: String { serialized() }
}
