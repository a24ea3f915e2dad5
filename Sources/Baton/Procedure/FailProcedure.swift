/// `baton.fail`: fails with `message` until the attempt number reaches `succeed_on_attempt`.
public struct FailProcedure: Procedure {
    public static let name = "baton.fail"
    public struct Input: Codable, Sendable {
        public let message: String
        public let permanent: Bool?
        public let succeedOnAttempt: Int?
        enum CodingKeys: String, CodingKey {
            case message, permanent
            case succeedOnAttempt = "succeed_on_attempt"
        }
    }
    public struct Output: Codable, Sendable { public let attempt: Int }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        if let n = input.succeedOnAttempt, context.attempt >= n { return Output(attempt: context.attempt) }
        throw ProcedureFailure(input.message, permanent: input.permanent ?? false)
    }
}
