import CoreData

/// The `Office` entity's class, written by hand: its Codegen setting is Manual/None, so the build plugin
/// generates no class for it, while the generated `Department.office` still refers to this one.
public final class Office: NSManagedObject {
    @nonobjc public class func fetchRequest() -> NSFetchRequest<Office> {
        NSFetchRequest<Office>(entityName: "Office")
    }

    @Managed public var city: String?
    @Managed public var floors: Int16
    @Managed public var departments: Set<Department>
    @NSManaged public var badges: NSSet?

    /// A line for a directory board: "Lyon (3 floors)".
    public var label: String { "\(city ?? "?") (\(floors) floor\(floors == 1 ? "" : "s"))" }
}
