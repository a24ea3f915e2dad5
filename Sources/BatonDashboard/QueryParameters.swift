import Foundation

/// A URL's query string as name → value, decoded as browsers encode forms (`+` is a space, `%XX`
/// a byte). A name given twice keeps its first value; undecodable text is dropped.
public enum QueryParameters {
    public static func parse(_ query: String?) -> [String: String] {
        guard let query, !query.isEmpty else { return [:] }
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), !name.isEmpty else { continue }
            let value = parts.count > 1 ? decode(parts[1]) : ""
            if result[name] == nil, let value { result[name] = value }
        }
        return result
    }

    static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
