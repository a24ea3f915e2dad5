/// `baton.echo`: returns its input unchanged.
public struct EchoProcedure: Procedure {
    public static let name = "baton.echo"
    public init() {}
    public func execute(_ input: JSON, context: ProcedureContext) async throws -> JSON { input }
}

/// `baton.add`: the sum of `values`.
public struct AddProcedure: Procedure {
    public static let name = "baton.add"
    public struct Input: Codable, Sendable { public let values: [JSON] }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> JSON {
        try NumberFolding.fold(input.values, .sum, procedure: Self.name)
    }
}

/// `baton.sleep`: waits `seconds`, ending early when its node is cancelled.
public struct SleepProcedure: Procedure {
    public static let name = "baton.sleep"
    public struct Input: Codable, Sendable { public let seconds: Double }
    public struct Output: Codable, Sendable { public let slept: Double }
    /// One year: longer sleeps are surely mistakes.
    public static let maximumSeconds: Double = 366 * 24 * 3600
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        guard input.seconds.isFinite, input.seconds >= 0, input.seconds <= Self.maximumSeconds else {
            throw ProcedureFailure("seconds must be a number from 0 to \(Int(Self.maximumSeconds)), got \(input.seconds)", permanent: true)
        }
        try await Task.sleep(nanoseconds: UInt64(input.seconds * 1_000_000_000))
        return Output(slept: input.seconds)
    }
}

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
