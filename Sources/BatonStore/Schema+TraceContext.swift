extension Schema {
    /// Migration 19, traces across processes (docs/operations.md, "Traces"): the W3C `traceparent` of the
    /// span that submitted a run (`baton submit --otlp-endpoint`), so the coordinator's span of the run is its child.
    static let traceContext: [String] = [
        "alter table baton.runs add column if not exists traceparent text"
    ]
}
