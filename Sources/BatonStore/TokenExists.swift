/// `createToken` found a token of that name not revoked.
public struct TokenExists: Error, Sendable, CustomStringConvertible {
    public let name: String
    public var description: String { "a token named '\(name)' exists (revoke it first with `baton token revoke \(name)`, or choose another name)" }
}
