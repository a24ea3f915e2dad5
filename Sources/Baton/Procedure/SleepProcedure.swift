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
