import Baton
import BatonStore

/// Who may call an operation (a value; the routes carry out its answers): a request shows a token as
/// `Authorization: Bearer SECRET`; a missing, malformed, unknown, expired or revoked one is 401, a
/// token without the operation's scope 403 (docs/api.md, "Tokens and scopes").
public enum APIAccess {
    /// The secret an `Authorization` header presents, or the 401 that refuses it.
    public static func secret(authorization: String?) -> Result<TokenSecret, APIError> {
        guard let authorization, !authorization.isEmpty else {
            return .failure(.unauthorized("this needs a token: send Authorization: Bearer TOKEN (see `baton token create`)"))
        }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            return .failure(.unauthorized("the Authorization header must be `Bearer TOKEN`"))
        }
        let secret = TokenSecret(text: parts[1].trimmingCharacters(in: .whitespaces))
        guard secret.isWellFormed else { return .failure(Self.unknownToken) }
        return .success(secret)
    }

    /// The answer for a secret no live token has: the same whether it never existed, expired or was
    /// revoked, so a caller learns nothing about other tokens.
    public static let unknownToken = APIError.unauthorized("the token is unknown, expired or revoked")

    /// Nil when `token` may act with `scope` (nil: any valid token); the 403 otherwise.
    public static func refusal(_ token: TokenRow, needs scope: AccessScope?) -> APIError? {
        guard let scope, !scope.isGranted(by: token.scopes) else { return nil }
        return .forbidden("token '\(token.name)' lacks the \(scope.rawValue) scope this needs")
    }
}
