/// One thing a node must hold while it is queued or running: a mutex category (`mutex/NAME`,
/// limit 1), a concurrency key (`concurrency/KEY`, limit N) or an in-flight cache slot
/// (`cache/PROCEDURE INPUT`, limit 1: identical cached nodes run once).
public struct AdmissionClaim: Sendable, Hashable, Codable {
    public let name: String
    public let limit: Int

    public init(name: String, limit: Int) {
        self.name = name
        self.limit = limit
    }

    public static func mutex(_ category: String) -> AdmissionClaim { AdmissionClaim(name: "mutex/" + category, limit: 1) }
    public static func concurrency(_ key: String, limit: Int) -> AdmissionClaim { AdmissionClaim(name: "concurrency/" + key, limit: limit) }
}
