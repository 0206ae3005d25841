import CoreDataStoreKit

extension SQLiteRowPlan {
    /// The attribute types whose values a row plan moves between a row's `Any?` and a column without the general
    /// conversions: written by `Binder`, read by `Reader`, each decided once per plan.
    enum DirectType: UInt8 {
        case int64, int32, int16, boolean, double, string
        /// Written and read through the general conversions (`bind(_:value:to:at:)`, `SQLValueCoding.decode`).
        case general

        /// The direct type of an attribute of `type` (`general` for every type not listed above).
        init(_ type: NSAttributeType) {
            switch type {
            case .integer64AttributeType: self = .int64
            case .integer32AttributeType: self = .int32
            case .integer16AttributeType: self = .int16
            case .booleanAttributeType: self = .boolean
            case .doubleAttributeType: self = .double
            case .stringAttributeType: self = .string
            default: self = .general
            }
        }
    }
}
