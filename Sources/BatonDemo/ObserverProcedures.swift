import Baton
import Foundation

/// `demo.countdown`: counts down by one on each run of a repeating node, starting
/// from `from`; its output says how much is left. For `repeat` demos.
public struct CountdownProcedure: Procedure {
    public static let name = "demo.countdown"
    public struct Input: Codable, Sendable { public let from: Int }
    public struct Output: Codable, Sendable { public let remaining: Int }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        let previous = context.previousOutput?["remaining"]?.intValue ?? input.from
        let remaining = max(0, previous - 1)
        context.log("remaining: \(remaining)")
        return Output(remaining: remaining)
    }
}

/// `demo.steps`: works through `steps` steps of `seconds` each, reporting progress
/// and a log line per step. For `baton watch` demos.
public struct StepsProcedure: Procedure {
    public static let name = "demo.steps"
    public struct Input: Codable, Sendable { public let steps: Int; public let seconds: Double }
    public struct Output: Codable, Sendable { public let steps: Int }
    public init() {}
    public func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        guard (0...10_000).contains(input.steps), input.seconds >= 0, input.seconds <= 3600 else {
            throw ProcedureFailure("steps must be 0 to 10000 and seconds 0 to 3600", permanent: true)
        }
        for step in 1...max(input.steps, 1) where input.steps > 0 {
            try await Task.sleep(nanoseconds: UInt64(input.seconds * 1_000_000_000))
            context.log("step \(step) of \(input.steps) done")
            context.reportProgress(Double(step) / Double(input.steps), "step \(step)")
        }
        return Output(steps: input.steps)
    }
}
