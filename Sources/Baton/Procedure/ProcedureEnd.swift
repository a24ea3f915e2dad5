/// What an attempt's procedure ended with, and the type name of the error it threw, if it threw
/// one other than `ProcedureFailure` (`AttemptResult.errorType`).
struct ProcedureEnd: Sendable {
    var outcome: AttemptOutcome<EncodedJSON>
    var errorType: String?

    init(_ outcome: AttemptOutcome<EncodedJSON>, errorType: String? = nil) {
        self.outcome = outcome
        self.errorType = errorType
    }
}
