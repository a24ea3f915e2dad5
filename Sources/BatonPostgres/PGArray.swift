/// A PostgreSQL array literal (`{"a","b",NULL}`) for one text parameter: how many rows go in one
/// statement with `unnest($1::text[], $2::text[], ...)`, which PostgreSQL reads much faster than a
/// JSON document of records.
public enum PGArray {
    /// The literal of `elements`; nil elements are SQL NULL.
    public static func literal(_ elements: [String?]) -> String {
        // Byte by byte: in UTF-8 the bytes of `\` and `"` stand only for themselves.
        var out: [UInt8] = []
        out.reserveCapacity(elements.count * 8 + 2)
        out.append(UInt8(ascii: "{"))
        for (i, element) in elements.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            guard var element else {
                out.append(contentsOf: "NULL".utf8)
                continue
            }
            out.append(UInt8(ascii: "\""))
            element.withUTF8 { bytes in
                for b in bytes {
                    if b == UInt8(ascii: "\\") || b == UInt8(ascii: "\"") { out.append(UInt8(ascii: "\\")) }
                    out.append(b)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The literal of `elements`, none of them NULL.
    public static func literal(_ elements: [String]) -> String { literal(elements.map { Optional($0) }) }
}
