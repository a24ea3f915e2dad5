/// The sign-in page (`GET /login`): a form that posts a token to `/login`, with where to go after,
/// and, after a refused token, one line saying so. No script: it works with the page's CSP as is.
public struct LoginPage: Sendable {
    /// The path to go to once signed in (already checked by `SignInGate.safeNext`).
    public var next: String
    /// The line shown after a refused token.
    public var problem: String?

    public init(next: String, problem: String? = nil) {
        self.next = next
        self.problem = problem
    }

    public func render() -> String {
        let problem = self.problem.map { "<p class=\"error-text\" id=\"login-error\" role=\"alert\">\(HTML.escape($0))</p>" } ?? ""
        let body = """
            <div class="card login"><h1>Sign in</h1>
            <p class="muted">Paste an API token (<code>baton token create NAME --scope read,operate</code>). \
            The dashboard keeps a session cookie for 12 hours; the token itself is not stored in the browser.</p>
            <form method="post" action="/login" id="login-form">
            <label for="token">Token</label>
            <input id="token" name="token" type="password" autocomplete="off" required autofocus>
            <input type="hidden" name="next" value="\(HTML.escape(next))">
            <button type="submit" id="sign-in">Sign in</button>
            </form>\(problem)</div>
            """
        return PageLayout(viewer: nil).page(title: "Sign in", section: .login, body: body)
    }
}
