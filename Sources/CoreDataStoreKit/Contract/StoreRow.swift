/// One stored object as a store hands it over: its key, its version and its values.
///
/// `values` is indexed by slot in the layout of the row's concrete entity (`EntityLayout`): every stored
/// attribute holds its Swift value or nil, every to-one relationship holds the destination's `ObjectKey` or nil,
/// and transient and to-many slots hold nil (to-many destinations come from `relatedKeys(of:through:)`).
/// Attribute values have exactly the Swift type of their attribute type: Int16, Int32, Int64, Decimal, Double,
/// Float, String, Bool, Date, Data, UUID, URL; Data for transformable attributes (already transformed by the
/// coordinator); and for a composite attribute (`NSCompositeAttributeDescription`) a `[String: Any]` of its
/// elements' values by element name, nested composites as nested dictionaries, elements without a value absent.
/// A row's entity is `model.entity(withNumber: key.entityNumber)`; `entity.layout.slotByName`, `slotKinds` and
/// `storedSlots` say which slot is which.
public struct StoreRow {
    /// The object's key.
    public var key: ObjectKey
    /// The optimistic-locking version (Apple's `Z_OPT`): 1 after the insert, one more after each saved update.
    public var version: Int64
    /// The values, by slot.
    public var values: [Any?]

    /// A row with this key, version and values (by slot of the key's entity layout).
    public init(key: ObjectKey, version: Int64, values: [Any?]) {
        self.key = key
        self.version = version
        self.values = values
    }
}
