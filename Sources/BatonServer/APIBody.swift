import Baton
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

    /// The body as a JSON object of the `allowed` members, read as `collect` reads it; JSON only
    /// (`requireJSON`) unless it is empty. See `object(_:allowed:)`.
    static func object(_ request: Request, limit: Int, allowed: Set<String>) async throws -> JSONObject {
        let bytes = try await collect(request, limit: limit)
        if !isBlank(bytes) { try requireJSON(request) }
        return try object(bytes, allowed: allowed)
    }

    /// `bytes` as a JSON object of the `allowed` members: blank is `{}`; 400 for JSON that does not
    /// parse, 422 for another value or an unknown member.
    static func object(_ bytes: [UInt8], allowed: Set<String>) throws -> JSONObject {
        if isBlank(bytes) { return JSONObject([]) }
        let json: JSON
        do { json = try JSONParser.parse(bytes) } catch { throw APIError.badRequest("the body is not JSON: \(error)") }
        guard let object = json.objectValue else { throw APIError.invalid("the body must be a JSON object, not \(json.kindName)") }
        if let unknown = object.map(\.key).first(where: { !allowed.contains($0) }) {
            throw APIError.invalid(
                "unknown member '\(unknown.prefix(100))' in the body (expected \(allowed.sorted().joined(separator: ", ")))",
                details: [["message": "unknown member", "field": .string("/" + unknown.prefix(100))]])
        }
        return object
    }

    private static func isBlank(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 } }
}
