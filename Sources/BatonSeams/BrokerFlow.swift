/// Whether the broker blocks publishers (`connection.blocked`: a memory or disk alarm), as a
/// coordinator's publishing connection last heard.
public struct BrokerFlow: Sendable, Equatable {
    /// The broker's reason while it blocks publishers ("low on memory"), else nil.
    public var blocked: String?
    /// How many blocks began so far: one that began and ended between two looks still shows here.
    public var blocks: Int

    public init(blocked: String?, blocks: Int) {
        self.blocked = blocked
        self.blocks = blocks
    }
}
