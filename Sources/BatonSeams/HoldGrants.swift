import Baton
import Foundation

/// What `grantWaiting` did: the holds it granted, and when the next rate token is due for a node
/// that waits for one (the time to grant again; nil when none waits for a token).
public struct HoldGrants: Sendable {
    public var granted: [AdmissionTable.Entry]
    public var nextTokenAt: Date?

    public init(granted: [AdmissionTable.Entry] = [], nextTokenAt: Date? = nil) {
        self.granted = granted
        self.nextTokenAt = nextTokenAt
    }
}
