/// One attempt of one node (on the wire: `{"node", "attempt"}`).
public struct TaskRef: Sendable, Equatable, Hashable, Codable {
    public let key: String
    public let attempt: Int
    public init(key: String, attempt: Int) {
        self.key = key
        self.attempt = attempt
    }

    enum CodingKeys: String, CodingKey {
        case key = "node", attempt
    }
}
