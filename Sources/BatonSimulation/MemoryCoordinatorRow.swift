import BatonStore
import Foundation

/// A row of `baton.coordinators` in a `MemoryStore`: what the coordinator announced, when, and
/// the connection (session) it announced on.
struct MemoryCoordinatorRow: Equatable {
    var announcement: CoordinatorAnnouncement
    var lastSeen: Date
    var session: Int
}
