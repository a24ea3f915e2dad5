import Baton
import Dispatch

/// `test.stubborn-sleep`: waits `seconds` and ignores cancellation, so a timeout or a cancel
/// cannot end it early. It exists only in this test executable, to show that a worker keeps
/// the slot of such a procedure busy until it really returns; no worker that Baton ships serves it.
struct StubbornSleepProcedure: Procedure {
    static let name = "test.stubborn-sleep"
    struct Input: Codable, Sendable { let seconds: Double }
    struct Output: Codable, Sendable { let slept: Double }
    func execute(_ input: Input, context: ProcedureContext) async throws -> Output {
        guard input.seconds.isFinite, input.seconds >= 0, input.seconds <= 3600 else {
            throw ProcedureFailure("seconds must be a number from 0 to 3600, got \(input.seconds)", permanent: true)
        }
        // A continuation with no cancellation handler: cancelling this task does not end the wait.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + input.seconds) { continuation.resume() }
        }
        return Output(slept: input.seconds)
    }
}
