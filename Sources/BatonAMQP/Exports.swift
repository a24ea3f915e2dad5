// And the librabbitmq-c wrapper they drive (`AMQPConnection`, `AMQPURL`, `AMQPError`).
@_exported import BatonAMQPClient
// Callers of the broker adapters keep importing BatonAMQP alone: the seams they implement come with it.
@_exported import BatonSeams
