/// One member of an object template.
public struct TemplateMember: Sendable, Hashable, Codable {
    public let key: String
    public let value: Template
}
