/// A message delivered by PostgreSQL's `NOTIFY` to a channel this connection `LISTEN`s on.
public struct PGNotification: Sendable, Equatable {
    /// The channel name, as the notifier spelled it.
    public var channel: String
    /// The payload (empty when none was given).
    public var payload: String
    /// The process ID of the server backend that sent the notification.
    public var pid: Int

    public init(channel: String, payload: String, pid: Int) {
        self.channel = channel
        self.payload = payload
        self.pid = pid
    }
}
