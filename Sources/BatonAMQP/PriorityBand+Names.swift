import BatonSeams

/// A band's queue and routing key on RabbitMQ.
extension PriorityBand {
    /// The band's queue of tasks for `procedure` in `pool`. Other bands' names start
    /// `baton.tasks:<lowest>.`, which no lowest band's name (`baton.tasks.`) can.
    func queue(pool: String, procedure: String) -> String {
        let key = BatonTopology.routingKey(pool: pool, procedure: procedure)
        return lowest == 0 ? "baton.tasks.\(key)" : "baton.tasks:\(lowest).\(key)"
    }

    /// The band's routing key for `procedure` in `pool`. Other bands' keys start with ':', which a
    /// pool name (the lowest band's key starts with it) cannot hold.
    func routingKey(pool: String, procedure: String) -> String {
        let key = BatonTopology.routingKey(pool: pool, procedure: procedure)
        return lowest == 0 ? key : ":\(lowest):\(key)"
    }
}
