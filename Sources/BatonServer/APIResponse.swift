import Baton
import Hummingbird

/// The API's answers: JSON with headers that keep them out of caches and sniffing.
enum APIResponse {
    static func json(_ value: JSON, status: Int = 200, headers extra: [(String, String)] = []) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        for (name, value) in [("X-Content-Type-Options", "nosniff")] + extra {
            guard let field = HTTPFields.Element.Name(name) else { continue }
            headers[field] = value
        }
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: value.serialized() + "\n"))
        )
    }

    static func error(_ error: APIError) -> Response {
        let headers = (error.status == 401 ? [("WWW-Authenticate", "Bearer")] : []) + (error.retryAfter.map { [("Retry-After", String($0))] } ?? [])
        return json(error.json, status: error.status, headers: headers)
    }
}
