/// `--rate-limit`: requests per second a token may make on average, as `N/s`, `N/m` or `off`.
public struct RateLimit: Sendable, Equatable, CustomStringConvertible {
    /// Nil: no limit.
    public let perSecond: Double?
    /// As it was given (`20/s`).
    public let text: String

    public init(perSecond: Double?, text: String) {
        self.perSecond = perSecond
        self.text = text
    }

    public static let off = RateLimit(perSecond: nil, text: "off")

    /// Parses `N/s`, `N/m` (N a whole number from 1 to 1,000,000) or `off`; the one-line problem otherwise.
    public static func parse(_ text: String) -> Result<RateLimit, RateLimitProblem> {
        if text == "off" { return .success(.off) }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let count = Int(parts[0]), (1...1_000_000).contains(count), parts[0].allSatisfy(\.isNumber),
            let unit = ["s": 1.0, "m": 60.0][String(parts[1])]
        else {
            return .failure(RateLimitProblem(description: "'\(text)' is not a rate: give N/s or N/m (N from 1 to 1000000), or off"))
        }
        return .success(RateLimit(perSecond: Double(count) / unit, text: text))
    }

    public var description: String { text }
}

/// Why a `--rate-limit` value was refused.
public struct RateLimitProblem: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}
