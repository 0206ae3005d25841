import CoreDataStoreKit

/// Where a PostgreSQL store lives: a server, a database and a schema, read from the store URL
/// (`postgresql://user@host:port/database?schema=name&sslmode=…`, or `postgres://`) and the options.
///
/// Guarantees: the schema name is a plain lowercase identifier (letters, digits, `_`; at most 53 bytes, so the
/// names made from it, `coredata_<schema>` and `<schema>_migrating`, stay within PostgreSQL's 63), so
/// it is used in SQL as it is; every other query parameter goes to libpq unchanged; the display name never
/// holds a user name or password.
struct PostgreSQLLocation {
    /// The URI libpq connects with (the `schema` parameter removed).
    let connectionURI: String
    /// The schema that holds the store's tables (default `public`).
    let schema: String
    /// The password from the options, if any.
    let password: String?
    /// `host:port/database`, for messages.
    let displayName: String

    /// - Throws: 134080 when the URL is not a `postgresql://` or `postgres://` URL, or the schema name is not
    ///   a plain lowercase identifier.
    init(url: URL?, options: [AnyHashable: Any]) throws {
        guard let url, let scheme = url.scheme?.lowercased(), scheme == "postgresql" || scheme == "postgres",
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw CoreDataError.openFailed(url, reason: "the PostgreSQL store needs a postgresql:// URL (postgresql://user@host:port/database?schema=name)")
        }
        var schema = components.queryItems?.first(where: { $0.name == "schema" })?.value
        components.queryItems = components.queryItems?.filter { $0.name != "schema" }
        if components.queryItems?.isEmpty == true { components.queryItems = nil }
        if let option = options[NSPostgreSQLSchemaOption] {
            guard let name = option as? String else {
                throw CoreDataError.openFailed(url, reason: "the \(NSPostgreSQLSchemaOption) option must be a string")
            }
            schema = name
        }
        let name = schema ?? "public"
        guard Self.isPlainIdentifier(name) else {
            throw CoreDataError.openFailed(url, reason: "the schema name \"\(name)\" is not a lowercase identifier (letters a–z, digits and _, at most 53 bytes, not starting with a digit)")
        }
        self.schema = name
        connectionURI = components.string ?? url.absoluteString
        if let option = options[NSPostgreSQLPasswordOption] {
            guard let password = option as? String else {
                throw CoreDataError.openFailed(url, reason: "the \(NSPostgreSQLPasswordOption) option must be a string")
            }
            self.password = password
        } else {
            password = nil
        }
        let socket = components.queryItems?.first { $0.name == "host" }?.value.map { "socket \($0)" }
        let host = components.host.flatMap { $0.isEmpty ? nil : $0 } ?? socket ?? "local socket"
        let port = components.port.map { ":\($0)" } ?? ""
        displayName = "\(host)\(port)\(components.path.isEmpty ? "" : components.path) (schema \(name))"
    }

    /// Whether `name` can be used in SQL without quotes and means itself.
    static func isPlainIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(48...57).contains(first), name.utf8.count <= 53 else { return false }
        return name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 95 }
    }

    /// The parameters for `PostgreSQLConnection`: the URI (expanded by libpq), the password when given, and
    /// the session settings with the schema first on the search path.
    var connectionParameters: [(String, String)] {
        var parameters = [("dbname", connectionURI)]
        if let password { parameters.append(("password", password)) }
        parameters.append(("options", "-c search_path=\(schema) -c TimeZone=UTC -c DateStyle=ISO,YMD -c extra_float_digits=3"))
        return parameters
    }
}
