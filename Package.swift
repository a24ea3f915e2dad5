// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Baton",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "Baton", targets: ["Baton"]),
        .library(name: "BatonTesting", targets: ["BatonTesting"]),
        .library(name: "BatonWorker", targets: ["BatonWorker"]),
        // A worker's opt-ins: `--metrics`, `--otlp-endpoint` and YAML graph files (`WorkerMain.main(registry:extras: .all)`).
        .library(name: "BatonWorkerExtras", targets: ["BatonWorkerExtras"]),
        // Submitting runs from Swift (`Store.submit`), as `baton submit` does.
        .library(name: "BatonStore", targets: ["BatonStore"]),
        // Talking to `baton server` from Swift apps: async, with a URL and a token (no libpq).
        .library(name: "BatonClient", targets: ["BatonClient"]),
        .executable(name: "baton", targets: ["baton"]),
        .executable(name: "baton-sim", targets: ["baton-sim"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // Heap (timers in a priority queue).
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // Metrics: the services record through swift-metrics; `BatonHTTP` exports them for Prometheus.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The HTTP server of `--metrics` (and the dashboard); without its swift-configuration trait.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // Traces (OpenTelemetry): the span API everywhere; the OTLP/HTTP exporter only in `BatonCommandLine`,
        // without swift-otel's default OTLPGRPC trait (gRPC would add minutes to a clean build).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        // Webhooks (`BatonWebhooks`): HMAC-SHA256 signatures, and the HTTP client that posts deliveries (already
        // built for swift-otel's OTLP/HTTP exporter).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // Tests only: property-based round trips of the wire messages (`BatonTests`).
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CRabbitMQ", pkgConfig: "librabbitmq", providers: [.apt(["librabbitmq-dev"])]),
        .target(name: "CAMQPShim", dependencies: ["CRabbitMQ"]),
        .target(
            name: "Baton",
            dependencies: [.product(name: "Logging", package: "swift-log"), .product(name: "HeapModule", package: "swift-collections")]),
        .target(name: "BatonDemo", dependencies: ["Baton"]),
        // Pictures of graphs and runs (DOT, Mermaid, and SVG laid out here): pure, no I/O.
        .target(name: "BatonDrawing", dependencies: ["Baton"]),
        // The two client wrappers know nothing of Baton: they only move bytes.
        .target(name: "BatonPostgres", dependencies: ["CLibPQ"]),
        // The seams between decisions and I/O (store, schedules, broker), their values and failures: no C
        // dependency. BatonStore and BatonAMQP implement them; the simulator's twins too.
        .target(name: "BatonSeams", dependencies: ["Baton"]),
        // The librabbitmq-c wrapper (connections, deliveries, confirms, URLs): knows nothing of Baton, so it compiles
        // beside `Baton` in a worker's first build; BatonAMQP (the broker adapters) re-exports it.
        .target(name: "BatonAMQPClient", dependencies: ["CRabbitMQ", "CAMQPShim"]),
        .target(
            name: "BatonAMQP",
            dependencies: [
                "BatonSeams", "BatonAMQPClient", "CRabbitMQ", "CAMQPShim", .product(name: "Instrumentation", package: "swift-distributed-tracing"),
            ]),
        .target(name: "BatonStore", dependencies: ["Baton", "BatonSeams", "BatonPostgres"]),
        .target(name: "BatonCoordinator", dependencies: [
            "Baton", "BatonStore", "BatonAMQP",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .target(name: "BatonWorker", dependencies: [
            "Baton", "BatonAMQP", "BatonCommandLineCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
        ]),
        // What `baton` and every worker binary (`WorkerMain`) share: flags, one-line errors, logging, JSON graph files,
        // local runs. Lean: no HTTP server, OTLP exporter, YAML parser or swift-service-lifecycle (a user's worker builds it).
        .target(name: "BatonCommandLineCore", dependencies: [
            "Baton", "BatonLocal",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // A worker's opt-ins, which `baton` always has: `--metrics` (Hummingbird, Prometheus), `--otlp-endpoint` (swift-otel),
        // YAML graph files (Yams).
        .target(name: "BatonWorkerExtras", dependencies: [
            "Baton", "BatonCommandLineCore", "BatonWorker", "BatonYAML", "BatonHTTP",
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "OTel", package: "swift-otel"),
        ]),
        // `baton`'s command line: the two above (re-exported) and what only `baton` needs (terminal width, durations, sizes).
        .target(name: "BatonCommandLine", dependencies: ["BatonCommandLineCore", "BatonWorkerExtras"]),
        // The operator's HTTP endpoints (`--metrics`): Prometheus text, liveness and readiness, on Hummingbird.
        .target(name: "BatonHTTP", dependencies: [
            "Baton",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .target(name: "BatonTesting", dependencies: ["Baton", "BatonLocal", "BatonDemo", "BatonYAML"]),
        // Runs a graph in this process (`LocalEngine`, on a `TestClock` in tests): `run --local` and the test kit.
        .target(name: "BatonLocal", dependencies: ["Baton", .product(name: "Logging", package: "swift-log")]),
        // YAML graph files, kept out of the core so `Baton` has no parser dependency but its own.
        .target(name: "BatonYAML", dependencies: ["Baton", .product(name: "Yams", package: "Yams")]),
        // `baton dashboard`: the web pages and JSON API over the run history (Hummingbird).
        .target(name: "BatonDashboard", dependencies: [
            "Baton", "BatonStore", "BatonDrawing", "BatonHTTP",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
        ],
        // The pages' script, styles and icon: files checked by deploy/local/check-assets.sh, compiled into the
        // binary (`PackageResources`), so a `baton` copied alone serves them (no resource bundle beside it).
        resources: [
            .embedInCode("Assets/dashboard.js"), .embedInCode("Assets/timeline.js"),
            .embedInCode("Assets/dashboard.css"), .embedInCode("Assets/timeline.css"), .embedInCode("Assets/favicon.svg"),
        ]),
        // A client of `baton server`'s API: Baton's JSON and Foundation's URLSession, nothing more.
        .target(name: "BatonClient", dependencies: ["Baton"]),
        // `baton server`'s HTTP API (/api/v1): bearer tokens, runs submitted and read, beside the dashboard.
        .target(name: "BatonServer", dependencies: [
            "Baton", "BatonStore", "BatonYAML", "BatonDemo", "BatonDashboard",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // Webhooks out (`baton coordinator` delivers them): signatures, formats, the delivery decision and its HTTP shell.
        // Not linked by BatonWorker.
        .target(name: "BatonWebhooks", dependencies: [
            "Baton", "BatonSeams", "BatonStore",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .executableTarget(name: "baton", dependencies: [
            "Baton", "BatonDemo", "BatonStore", "BatonAMQP", "BatonCoordinator", "BatonWorker", "BatonTesting",
            "BatonYAML", "BatonDrawing", "BatonHTTP", "BatonDashboard", "BatonServer", "BatonCommandLine", "BatonWebhooks", "BatonClient",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]),
        // A worker for Baton's own tests: it also serves a procedure that kills its own process.
        .executableTarget(
            name: "BatonTestWorker",
            dependencies: ["Baton", "BatonDemo", "BatonWorker", "BatonWorkerExtras", .product(name: "Tracing", package: "swift-distributed-tracing")]),
        .executableTarget(name: "BatonChaos", dependencies: [
            "Baton", "BatonDemo", "BatonStore", "BatonAMQP", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "BatonBenchmark", dependencies: [
            "Baton", "BatonStore", "BatonAMQP", "BatonCoordinator", "BatonWorker", "BatonClient",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "baton-sim", dependencies: [
            "BatonSimulation", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The cluster simulator (`baton-sim`): in-memory twins of the store and the broker, a virtual clock, seeded faults.
        .target(name: "BatonSimulation", dependencies: ["Baton", "BatonDemo", "BatonStore", "BatonAMQP", "BatonCoordinator", "BatonWorker", "BatonWebhooks", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "BatonSimulationTests", dependencies: ["Baton", "BatonDemo", "BatonStore", "BatonAMQP", "BatonSimulation", "BatonPostgres", "BatonWebhooks"]),
        .testTarget(name: "BatonPostgresTests", dependencies: ["BatonPostgres"]),
        .testTarget(name: "BatonAMQPTests", dependencies: ["BatonAMQP", "BatonAMQPClient"]),
        .testTarget(
            name: "BatonTests",
            dependencies: ["Baton", "BatonDemo", "BatonTesting", .product(name: "PropertyBased", package: "swift-property-based")]),
        .testTarget(name: "BatonYAMLTests", dependencies: ["Baton", "BatonYAML"]),
        .testTarget(name: "BatonDrawingTests", dependencies: ["Baton", "BatonDrawing"]),
        // Webhook signatures, formats and the delivery decision: no services.
        .testTarget(name: "BatonWebhooksTests", dependencies: ["Baton", "BatonStore", "BatonWebhooks"]),
        .testTarget(name: "BatonDashboardTests", dependencies: ["Baton", "BatonStore", "BatonHTTP", "BatonDashboard", "BatonServer"]),
        // The shells' decisions (worker intake, coordinator batching, leases, failures) and wire formats: no services.
        .testTarget(name: "BatonShellTests", dependencies: [
            "Baton", "BatonAMQP", "BatonPostgres", "BatonStore", "BatonCoordinator", "BatonWorker", "BatonHTTP", "BatonCommandLine",
            "BatonCommandLineCore",
        ]),
        // The deployment files (deploy/kubernetes, deploy/systemd, deploy/prometheus), checked structurally.
        .testTarget(name: "BatonDeployTests", dependencies: [.product(name: "Yams", package: "Yams")]),
        .testTarget(name: "BatonIntegrationTests", dependencies: [
            "Baton", "BatonDrawing", "BatonDemo", "BatonStore", "BatonPostgres", "BatonAMQP", "BatonCoordinator", "BatonWorker", "BatonTesting",
            "BatonDashboard", "BatonClient", "BatonWebhooks", .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
        ]),
    ]
)
