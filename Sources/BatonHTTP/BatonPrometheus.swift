import CoreMetrics
import Prometheus

/// The swift-metrics factory that records into a Prometheus registry, with histogram buckets
/// fitted to Baton's metrics (run durations in minutes, batch sizes in thousands of commands).
/// One registry per service: tests can run several services in one process, and nothing
/// global is bootstrapped here (the CLI also bootstraps `MetricsSystem` with it, once, so
/// procedures that record through swift-metrics land on the same `/metrics`).
public enum BatonPrometheus {
    public static func factory(registry: PrometheusCollectorRegistry) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        let quick: [Duration] = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
            .seconds(10), .seconds(30), .seconds(60),
        ]
        let long: [Duration] = [
            .milliseconds(100), .seconds(1), .seconds(5), .seconds(15), .seconds(30), .seconds(60), .seconds(300),
            .seconds(900), .seconds(1800), .seconds(3600), .seconds(4 * 3600), .seconds(24 * 3600),
        ]
        factory.defaultDurationHistogramBuckets = quick
        factory.durationHistogramBuckets = [
            "baton_run_duration_seconds": long,
            "baton_procedure_duration_seconds": quick + [.seconds(300), .seconds(900), .seconds(3600)],
        ]
        factory.valueHistogramBuckets = ["baton_coordinator_batch_commands": [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000]]
        return factory
    }
}
