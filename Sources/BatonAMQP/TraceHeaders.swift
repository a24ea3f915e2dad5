import Instrumentation

/// Moves a trace context in and out of message headers (`traceparent`, `tracestate`) as text.
public struct TraceHeaders: Injector, Extractor {
    public init() {}

    public func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) { carrier[key] = value }

    public func extract(key: String, from carrier: [String: String]) -> String? { carrier[key] }
}
