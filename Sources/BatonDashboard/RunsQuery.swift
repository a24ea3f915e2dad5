import Baton
import Foundation

/// What the runs list shows: a status, a piece of the name, which page and how many a page, read
/// from a URL's query (`status`, `name`, `page`, `per_page`) and checked.
public struct RunsQuery: Sendable, Equatable {
    public static let defaultPerPage = 50
    public static let maxPerPage = 500
    public static let maxNameLength = 200

    public var status: RunStatus?
    public var name: String?
    /// 1 for the first page.
    public var page: Int
    public var perPage: Int

    public init(status: RunStatus? = nil, name: String? = nil, page: Int = 1, perPage: Int = RunsQuery.defaultPerPage) {
        self.status = status
        self.name = name
        self.page = page
        self.perPage = perPage
    }

    /// The query in `parameters` (missing or empty ones take their defaults), or an error naming the bad parameter.
    public init(parameters: [String: String]) throws(DashboardError) {
        self.init()
        if let text = parameters["status"], !text.isEmpty {
            guard let status = RunStatus(rawValue: text) else {
                throw .badRequest(
                    "status: unknown run status '\(text.prefix(40))' (use \(RunStatus.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            self.status = status
        }
        if let text = parameters["name"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard text.count <= Self.maxNameLength else { throw .badRequest("name: longer than \(Self.maxNameLength) characters") }
            name = text
        }
        page = try Self.number(parameters, "page", default: 1, range: 1...1_000_000)
        perPage = try Self.number(parameters, "per_page", default: Self.defaultPerPage, range: 1...Self.maxPerPage)
    }

    /// Rows to skip for this page.
    public var offset: Int { (page - 1) * perPage }

    /// How many pages `total` matching runs make (at least one, shown empty).
    public func pageCount(total: Int) -> Int { max(1, (total + perPage - 1) / perPage) }

    /// The query string for the same filter on another page (for links), without defaults.
    public func queryString(page: Int? = nil) -> String {
        var items: [(String, String)] = []
        if let status { items.append(("status", status.rawValue)) }
        if let name { items.append(("name", name)) }
        let page = page ?? self.page
        if page != 1 { items.append(("page", String(page))) }
        if perPage != Self.defaultPerPage { items.append(("per_page", String(perPage))) }
        guard !items.isEmpty else { return "" }
        return "?" + items.map { "\($0.0)=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
    }

    /// The whole number `parameters[key]` within `range`, `value` when absent or empty; a 400 naming it otherwise.
    public static func number(
        _ parameters: [String: String], _ key: String, default value: Int, range: ClosedRange<Int>
    ) throws(DashboardError)
        -> Int
    {
        guard let text = parameters[key], !text.isEmpty else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw .badRequest("\(key): '\(text.prefix(40))' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let c = Character(UnicodeScalar(byte))
            if byte < 0x80 && (c.isLetter || c.isNumber || "-._~".contains(c)) {
                out.append(c)
            } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
