import Hummingbird

/// A request body as the API takes it: JSON, within a budget in bytes checked as it is received.
enum APIBody {
    /// 415 unless the request says its body is JSON (`application/json`, with or without parameters).
    static func requireJSON(_ request: Request) throws {
        let type = request.headers[.contentType] ?? ""
        let mediaType = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard mediaType == "application/json" else {
            throw APIError.unsupportedMediaType(
                type.isEmpty ? "the body must be JSON: send Content-Type: application/json" : "the body must be JSON (application/json), not \(type)")
        }
    }

    /// The body's bytes, refused with 413 as soon as they pass `limit`.
    static func collect(_ request: Request, limit: Int) async throws -> [UInt8] {
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch {
            throw APIError.payloadTooLarge("the body is larger than \(limit) bytes (the graph and input limits together)")
        }
    }
}
