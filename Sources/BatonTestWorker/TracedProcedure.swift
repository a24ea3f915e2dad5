import Baton
import Tracing

/// `test.traced`: opens a span of its own with `withSpan`, as a user's procedure would (it nests
/// under the attempt's span when the worker traces), logs a line inside it, and returns its input.
/// Test worker only.
struct TracedProcedure: Procedure {
    static let name = "test.traced"
    func execute(_ input: JSON, context: ProcedureContext) async throws -> JSON {
        withSpan("test.traced step") { span in
            span.attributes["test.node"] = context.nodeKey
            context.logger.info("test.traced: inside the procedure's own span")
            return input
        }
    }
}
