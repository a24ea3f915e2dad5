/// The least a broker user of each Baton role needs: the three regular expressions of
/// `rabbitmqctl set_permissions` (configure, write, read), matched by RabbitMQ against exchange
/// and queue names of the vhost. `baton broker-permissions ROLE` prints them.
///
/// - `migrate`: declares the whole durable topology (`BatonTopology.declareAll`): everything `baton.*`.
/// - `coordinator`: declares task queues (before it publishes to them) and its own exclusive
///   heartbeat queue (server-named `amq.gen-…`); publishes tasks, cancels and forwarded reports;
///   consumes the result, heartbeat and dead-letter queues. The shared topology it only checks.
/// - `worker`: declares only its exclusive control queue (`amq.gen-…`); publishes reports,
///   heartbeats, dead letters and tasks put back (`baton.requeue`); consumes the task queues. It
///   cannot declare, delete or bind a shared queue, nor publish to `baton.tasks`.
/// - `client`: `baton submit` and the other client commands talk to PostgreSQL only: nothing.
public enum BrokerRole: String, Sendable, CaseIterable {
    case coordinator
    case worker
    case client
    case migrate

    /// The three regular expressions, in `rabbitmqctl set_permissions` order.
    public struct Permissions: Sendable, Equatable {
        public let configure: String
        public let write: String
        public let read: String
    }

    /// Matches nothing: RabbitMQ's way of granting no right.
    public static let nothing = "^$"

    /// Every task queue: the lowest band's `baton.tasks.<pool>:<procedure>` and other bands'
    /// `baton.tasks:<lowest>.<pool>:<procedure>` (never the exchange `baton.tasks` itself).
    static let taskQueues = #"baton\.tasks[.:].+"#
    /// Server-named queues: a coordinator's heartbeat queue, a worker's control queue.
    static let serverNamed = #"amq\.gen-.*"#

    public var permissions: Permissions {
        func any(_ names: [String]) -> String { "^(" + names.joined(separator: "|") + ")$" }
        switch self {
        case .migrate:
            return Permissions(configure: #"^baton\..*$"#, write: #"^baton\..*$"#, read: #"^baton\..*$"#)
        case .coordinator:
            return Permissions(
                configure: any([Self.serverNamed, Self.taskQueues]),
                // Binds task queues and its heartbeat queue (write on the queue); a task queue's
                // dead-letter exchange is `baton.dead` (write on it, read on the queue).
                write: any([Self.serverNamed, Self.taskQueues, #"baton\.tasks"#, #"baton\.control"#, #"baton\.reports"#, #"baton\.dead"#]),
                read: any([
                    Self.serverNamed, Self.taskQueues, #"baton\.tasks"#, #"baton\.heartbeats"#, #"baton\.results(\.[0-9]+)?"#,
                    #"baton\.dead-letters"#,
                ]))
        case .worker:
            return Permissions(
                configure: any([Self.serverNamed]),
                write: any([Self.serverNamed, #"baton\.reports"#, #"baton\.heartbeats"#, #"baton\.dead"#, #"baton\.requeue"#]),
                read: any([Self.serverNamed, Self.taskQueues, #"baton\.control"#]))
        case .client:
            return Permissions(configure: Self.nothing, write: Self.nothing, read: Self.nothing)
        }
    }

    /// The problem with `text` as a role, nil if it is one.
    public static func problem(_ text: String) -> String? {
        BrokerRole(rawValue: text) == nil
            ? "unknown role '\(text)' (use \(allCases.map(\.rawValue).joined(separator: ", ")))" : nil
    }
}
