/// One element of the output of a `map` with `failure: collect`: the child's output or its error.
public struct MapOutcome<Output: Codable & Sendable>: Codable, Sendable {
    public let ok: Output?
    public let error: String?
}
