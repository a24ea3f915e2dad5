import Testing

/// Every integration suite is nested here so that they run one at a time: they
/// share one database and one vhost, and each starts its own coordinator. deploy/local/test.sh runs
/// them in two lanes (two processes, a database and a vhost each): a suite that touches anything beyond
/// its lane's pair (broker users, database roles, fixed names, services, clocks) stays out of lane 2's list.
@Suite("integration (real PostgreSQL and RabbitMQ)", .serialized)
enum Integration {}
