import Foundation

/// The API's OpenAPI 3.1 description, shipped as a resource (Pages/openapi.json); a test checks that it
/// lists exactly the router's endpoints.
enum OpenAPIDocument {
    static let json: Data = PageRoutes.resource("openapi.json").flatMap { try? Data(contentsOf: $0) } ?? Data("{}".utf8)
}
