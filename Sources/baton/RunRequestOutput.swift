import Baton
import BatonCommandLineCore

/// What `baton cancel` and `baton retry` print for their request: the run's status once a coordinator
/// applied it, or that none has yet (`--json`: `run_id`, `status`, `applied`).
enum RunRequestOutput {
    static func show(_ id: String, _ answer: RequestAnswer, requested verb: String, json: Bool) {
        if json {
            Output.json(["run_id": .string(id), "status": .string(answer.status.rawValue), "applied": .bool(answer.applied)])
        } else if answer.applied {
            print("run \(id) \(answer.status.rawValue)")
        } else {
            print("run \(id): \(verb) requested; no coordinator has applied it yet (it will when one runs)")
        }
    }
}
