/// A PostgreSQL array literal (`{"a","b",NULL}`) for one text parameter: how many rows go in one
/// statement with `unnest($1::text[], $2::text[], ...)`, which PostgreSQL reads much faster than a
/// JSON document of records.
public enum PGArray {
    /// The literal of `elements`; nil elements are SQL NULL.
    public static func literal<S: Sequence>(_ elements: S) -> String where S.Element == String? {
        var out = "{"
        var first = true
        for element in elements {
            if !first { out.append(",") }
            first = false
            guard let element else {
                out.append("NULL")
                continue
            }
            out.append("\"")
            for scalar in element.unicodeScalars {
                if scalar == "\\" || scalar == "\"" { out.unicodeScalars.append("\\") }
                out.unicodeScalars.append(scalar)
            }
            out.append("\"")
        }
        out.append("}")
        return out
    }

    /// The literal of `elements`, none of them NULL.
    public static func literal<S: Sequence>(_ elements: S) -> String where S.Element == String {
        literal(elements.lazy.map { Optional($0) })
    }
}
