/// The output of `baton.delay`: when it fired (ISO 8601).
public struct DelayFired: Codable, Sendable, CustomFieldNames {
    public let firedAt: String
    enum CodingKeys: String, CodingKey { case firedAt = "fired_at" }
    public static var fieldNames: [String: String] { ["firedAt": "fired_at"] }
}
