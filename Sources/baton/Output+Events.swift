import BatonCommandLine
import BatonStore

extension Output {
    /// One event as `baton events` and `baton watch` print it.
    static func eventLine(_ e: EventRow) -> String {
        let detail =
            e.detail.objectValue.map { o in o.members.map { "\($0.key)=\($0.value.stringValue ?? $0.value.serialized())" }.joined(separator: " ") }
            ?? ""
        return "\(e.at)  \(e.node ?? "-")  \(e.kind)  \(detail)"
    }
}
