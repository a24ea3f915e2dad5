import BatonSeams

/// What to record for one claimed delivery after its attempt (`DeliveryTurn.records`): the attempt's
/// number and outcome, the step `DeliveryPolicy` chose, and the line to log, if any.
public struct DeliveryRecord: Sendable, Equatable {
    public var deliveryID: Int64
    public var attempt: Int
    public var outcome: DeliveryOutcome
    public var step: DeliveryStep
    /// The log line: a retry at info, a give-up as a warning; nil for a delivery.
    public var log: (warning: Bool, text: String)?

    public init(deliveryID: Int64, attempt: Int, outcome: DeliveryOutcome, step: DeliveryStep, log: (warning: Bool, text: String)?) {
        self.deliveryID = deliveryID
        self.attempt = attempt
        self.outcome = outcome
        self.step = step
        self.log = log
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.deliveryID == b.deliveryID && a.attempt == b.attempt && a.outcome == b.outcome && a.step == b.step
            && a.log?.warning == b.log?.warning && a.log?.text == b.log?.text
    }
}
