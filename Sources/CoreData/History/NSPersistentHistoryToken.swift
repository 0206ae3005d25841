/// A position in the persistent history of a coordinator's stores: for each store (by identifier), the number
/// of the last transaction it covers (Apple's class of the same name). Tokens compare equal when they name the
/// same transactions, and can be archived (`NSSecureCoding`) to remember how far an app has read.
open class NSPersistentHistoryToken: NSObject, NSSecureCoding, @unchecked Sendable {
    /// Transaction numbers by store identifier.
    let transactionNumbers: [String: Int64]

    init(transactionNumbers: [String: Int64]) {
        self.transactionNumbers = transactionNumbers
        super.init()
    }

    /// True: a token can be archived with `NSKeyedArchiver` and read back with secure decoding, as apps keep their
    /// last-read position.
    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        let numbers = NSMutableDictionary()
        for (store, number) in transactionNumbers { numbers[store] = NSNumber(value: number) }
        coder.encode(numbers, forKey: "transactionNumbers")
    }

    public required init?(coder: NSCoder) {
        guard let numbers = coder.decodeObject(of: [NSDictionary.self, NSString.self, NSNumber.self], forKey: "transactionNumbers") as? NSDictionary else {
            return nil
        }
        var decoded: [String: Int64] = [:]
        for (key, value) in numbers {
            guard let store = key as? String, let number = (value as? NSNumber)?.int64Value else { return nil }
            decoded[store] = number
        }
        transactionNumbers = decoded
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        (object as? NSPersistentHistoryToken)?.transactionNumbers == transactionNumbers
    }

    open override var hash: Int { transactionNumbers.hashValue }

    open override var description: String {
        "<NSPersistentHistoryToken " + transactionNumbers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ">"
    }
}
