import CoreData

/// The `Badge` entity's class, written by hand: its Codegen setting is Category/Extension, so the build plugin
/// writes an extension with its `@NSManaged` properties and Xcode's relationship methods, as Xcode's build does,
/// and generates their accessors.
public class Badge: NSManagedObject {
    /// "GOLD-3": the code and level, as printed on the badge.
    public var label: String { "\(code ?? "?")-\(level)" }
}
