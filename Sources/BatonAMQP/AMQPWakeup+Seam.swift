import BatonSeams

/// The broker adapters are woken through the seams' protocol.
extension AMQPWakeup: BrokerWakeup {}
