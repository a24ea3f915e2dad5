import BatonStore

extension RunRequest {
    /// A request made by the store twin.
    static func memory(id: Int, runID: String, kind: Kind, node: String?, reason: String?) -> RunRequest {
        RunRequest(id: id, runID: runID, kind: kind, node: node, reason: reason)
    }
}
