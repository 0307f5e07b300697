/// A request before its body: what the server checks (access, size) before reading a byte of upload.
public struct RequestHead: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    /// Header names in lower case.
    public var headers: [String: String]
    public var cookies: [String: String]
    /// The client's address (no port), for limits kept per address; empty when unknown.
    public var client: String = ""
    /// Header names (lower case) the request gives more than once with different values: a body framed by two
    /// lengths is read differently by a proxy in front and by this server (request smuggling).
    public var conflicting: Set<String> = []

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// Methods that change something: the ones an Origin check guards.
    public var changesState: Bool { !["GET", "HEAD", "OPTIONS"].contains(method) }
}
