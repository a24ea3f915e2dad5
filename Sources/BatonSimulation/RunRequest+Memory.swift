import BatonStore

extension RunRequest {
    /// A request made outside BatonStore, which gives `RunRequest` no public initializer.
    ///
    /// Built from a struct of the same stored properties in the same order (so the same layout;
    /// `unsafeBitCast` traps if the sizes ever differ). A public memberwise `init` on `RunRequest`
    /// would make this unnecessary.
    static func memory(id: Int, runID: String, kind: Kind, node: String?, reason: String?) -> RunRequest {
        unsafeBitCast(Twin(id: id, runID: runID, kind: kind, node: node, reason: reason), to: RunRequest.self)
    }

    /// `RunRequest`'s stored properties, in its order.
    private struct Twin {
        let id: Int
        let runID: String
        let kind: Kind
        let node: String?
        let reason: String?
    }
}
