/// How one destination property gets its value during a migration (Apple's `NSPropertyMapping`).
///
/// `valueExpression` is evaluated with `$source` (the source instance), `$manager` (the
/// `NSMigrationManager`), `$entityMapping` and `$entityPolicy` bound; nil leaves the property alone (its
/// default value stays).
open class NSPropertyMapping: NSObject {
    /// The destination property's name.
    open var name: String?
    /// The expression giving the property's value; nil to leave the property as it is.
    open var valueExpression: CoreData.NSExpression?
    /// The mapping's user dictionary.
    open var userInfo: [AnyHashable: Any]?

    public override init() {
        super.init()
    }

    /// The mapping `name → valueExpression`, as a mapping model file describes it (an addition).
    convenience init(name: String?, valueExpression: CoreData.NSExpression?, userInfo: [AnyHashable: Any]? = nil) {
        self.init()
        self.name = name
        self.valueExpression = valueExpression
        self.userInfo = userInfo
    }

    open override var description: String {
        "NSPropertyMapping(\(name ?? "nil") = \(valueExpression?.description ?? "nil"))"
    }
}
