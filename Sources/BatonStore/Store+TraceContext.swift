import Foundation

extension Store {
    /// The run's submission time and stored `traceparent` (nil for an unknown run): read once per run
    /// by a coordinator that exports traces.
    public func traceContext(of runID: String) throws -> RunTraceContext? {
        let result = try connection.query(
            "select traceparent, extract(epoch from submitted_at)::float8 as t from baton.runs where id = $1::uuid", [runID])
        guard result.rowCount > 0, let seconds = result[row: 0, column: "t"].flatMap(Double.init) else { return nil }
        return RunTraceContext(traceparent: result[row: 0, column: "traceparent"], submittedAt: Date(timeIntervalSince1970: seconds))
    }
}
