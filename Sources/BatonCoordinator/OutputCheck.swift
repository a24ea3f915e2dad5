import Baton

/// The coordinator's own check of a result against the output limit (`BATON_MAX_OUTPUT_BYTES`): a
/// worker's word is not trusted, so a report whose output (or spawned graph) is larger fails its node
/// permanently, alone, as the worker's own check would have. A value, tested with no services.
struct OutputCheck: Sendable {
    let maxOutputBytes: Int

    /// `report` as the coordinator takes it, given the size of the message that carried it: a report
    /// smaller than the limit is taken as it is, with no measuring (the output is part of it).
    func checked(_ report: ReportMessage, messageBytes: Int) -> ReportMessage {
        guard report.kind == .result, report.failure == nil, messageBytes > maxOutputBytes, let output = report.output else { return report }
        let size = output.serializedBytes().count
        guard size > maxOutputBytes else { return report }
        var refused = report
        let what = report.spawned ? "the spawned graph" : "output"
        refused.output = nil
        refused.spawned = false
        refused.failure = (
            message: "\(what) is \(size) bytes, more than the limit of \(maxOutputBytes) (BATON_MAX_OUTPUT_BYTES); refused by the coordinator",
            permanent: true
        )
        return refused
    }
}
