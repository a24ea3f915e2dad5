import Baton
import Hummingbird

/// The responses the dashboard sends: HTML, JSON, assets and errors, each with the security headers.
enum DashboardResponse {
    static func make(status: Int, contentType: String, body: String, cache: Bool = false) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        for (name, value) in SecurityHeaders.all {
            guard let field = HTTPFields.Element.Name(name) else { continue }
            headers[field] = cache && name == "Cache-Control" ? "max-age=300" : value
        }
        return Response(status: HTTPResponse.Status(code: status), headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    static func html(_ body: String, status: Int = 200) -> Response {
        make(status: status, contentType: "text/html; charset=utf-8", body: body)
    }

    static func json(_ value: JSON, status: Int = 200) -> Response {
        make(status: status, contentType: "application/json; charset=utf-8", body: value.serialized() + "\n")
    }

    /// The error as JSON for the API.
    static func apiError(_ error: Error) -> Response {
        let problem = DashboardResponse.problem(error)
        return json(problem.json, status: problem.status)
    }

    /// The error as a page.
    static func pageError(_ error: Error, layout: PageLayout) -> Response {
        let problem = DashboardResponse.problem(error)
        let body = """
            <div class="card error-card"><h1>\(problem.status == 404 ? "Not found" : "Something went wrong")</h1>
            <p class="error-text">\(HTML.escape(problem.message))</p><p><a href="/">Back to the runs</a></p></div>
            """
        return html(layout.page(title: "Error", section: .runs, attributes: [("page", "error")], body: body), status: problem.status)
    }

    static func problem(_ error: Error) -> DashboardError {
        if let error = error as? DashboardError { return error }
        return DashboardError(status: 500, "\(error)")
    }
}
