import Baton
import BatonSeams

extension Store: CoordinatorStore {}

extension Store: DeliveryStore {}

extension Store: ScheduleStore {
    public func submitScheduled(_ graph: Graph, idempotencyKey: String) throws -> SubmittedRun {
        try submit(graph, idempotencyKey: idempotencyKey)
    }
}
