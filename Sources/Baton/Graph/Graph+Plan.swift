extension Graph {
    /// The graph's stored plan (`baton.runs.plan`) as JSON text: the document `WireFormat.encode`
    /// writes through `Codable`, written directly (a 100,000-node plan in a tenth of the time).
    public func planBytes() -> [UInt8] { PlanWriter.plan(self) }

    /// The graph a stored plan describes, of version 1 or 2, read without Foundation's decoder; one
    /// line naming the field when it is malformed. Its `source` is null.
    public init(plan bytes: [UInt8]) throws(MessageError) {
        self = try PlanReader.graph(text: String(decoding: bytes, as: UTF8.self))
    }

    /// The graph a stored plan's text describes (see `init(plan:)` for bytes), read node by node.
    public init(plan text: String) throws(MessageError) {
        self = try PlanReader.graph(text: text)
    }
}
