import Baton
import BatonAMQP

extension Backoff {
    /// The wait before connecting again after `error`: the usual back-off, or one capped at 30 s
    /// for a configuration error at run time (a wrong password or a missing vhost after a broker's
    /// users changed), so that is retried slowly, never in a tight loop.
    mutating func delay(after error: Error) -> Double {
        if BrokerFailure(error) == .configuration {
            return next(cappedAt: BrokerFailure.configurationBackoffCap)
        }
        return next()
    }
}
