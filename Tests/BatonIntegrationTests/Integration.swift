import Testing

/// Every integration suite is nested here so that they run one at a time: they
/// share one database and one vhost, and each starts its own coordinator.
@Suite("integration (real PostgreSQL and RabbitMQ)", .serialized)
enum Integration {}
