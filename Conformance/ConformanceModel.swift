import CoreData

/// The model every conformance case uses: every attribute type, an entity hierarchy, and to-one, to-many,
/// many-to-many, one-to-one and ordered relationships with each delete rule that matters.
///
/// - `Owner` (name required) —< `Item` (owner, nullify) ; `Owner` —< ordered `Chapter` (cascade) ;
///   `Owner` — `Profile` (one-to-one, cascade)
/// - `Item` >—< `Tag` (many-to-many); `SpecialItem` inherits from `Item` and adds `level`
/// - `Item` has one optional attribute of every type, plus `name` and `rank` for predicates and sorting.
/// - `Node` (name) —< `Node` (children, deny; parent, nullify): a tree for the deny rule, kept apart so the
///   other entities' cases are unaffected.
/// - `Account` (email, region, code) with uniqueness constraints `[["email"], ["region", "code"]]`, and
///   `PremiumAccount` inheriting from it (adds `tier`): kept apart for the constraint cases.
enum ConformanceModel {
    static func make() -> NSManagedObjectModel {
        let owner = NSEntityDescription(name: "Owner")
        let item = NSEntityDescription(name: "Item")
        let special = NSEntityDescription(name: "SpecialItem")
        let tag = NSEntityDescription(name: "Tag")
        let chapter = NSEntityDescription(name: "Chapter")
        let profile = NSEntityDescription(name: "Profile")
        let node = NSEntityDescription(name: "Node")
        let account = NSEntityDescription(name: "Account")
        let premium = NSEntityDescription(name: "PremiumAccount")

        let ownerItems = NSRelationshipDescription(name: "items", destination: item, toMany: true, deleteRule: .nullifyDeleteRule)
        let itemOwner = NSRelationshipDescription(name: "owner", destination: owner, toMany: false)
        pair(ownerItems, itemOwner)
        let ownerChapters = NSRelationshipDescription(name: "chapters", destination: chapter, toMany: true, deleteRule: .cascadeDeleteRule, isOrdered: true)
        let chapterOwner = NSRelationshipDescription(name: "owner", destination: owner, toMany: false)
        pair(ownerChapters, chapterOwner)
        let ownerProfile = NSRelationshipDescription(name: "profile", destination: profile, toMany: false, deleteRule: .cascadeDeleteRule)
        let profileOwner = NSRelationshipDescription(name: "owner", destination: owner, toMany: false)
        pair(ownerProfile, profileOwner)
        let itemTags = NSRelationshipDescription(name: "tags", destination: tag, toMany: true)
        let tagItems = NSRelationshipDescription(name: "items", destination: item, toMany: true)
        pair(itemTags, tagItems)
        let nodeChildren = NSRelationshipDescription(name: "children", destination: node, toMany: true, deleteRule: .denyDeleteRule)
        let nodeParent = NSRelationshipDescription(name: "parent", destination: node, toMany: false)
        pair(nodeChildren, nodeParent)

        let name = NSAttributeDescription(name: "name", type: .string, isOptional: false)
        owner.properties = [name, ownerItems, ownerChapters, ownerProfile]
        item.properties = [
            NSAttributeDescription(name: "name", type: .string),
            NSAttributeDescription(name: "rank", type: .integer64),
            NSAttributeDescription(name: "int16", type: .integer16),
            NSAttributeDescription(name: "int32", type: .integer32),
            NSAttributeDescription(name: "int64", type: .integer64),
            NSAttributeDescription(name: "decimal", type: .decimal),
            NSAttributeDescription(name: "double", type: .double),
            NSAttributeDescription(name: "float", type: .float),
            NSAttributeDescription(name: "string", type: .string),
            NSAttributeDescription(name: "flag", type: .boolean),
            NSAttributeDescription(name: "date", type: .date),
            NSAttributeDescription(name: "data", type: .binaryData),
            NSAttributeDescription(name: "uuid", type: .uuid),
            NSAttributeDescription(name: "uri", type: .uri),
            NSAttributeDescription(name: "transformable", type: .transformable),
            NSAttributeDescription(name: "scratch", type: .string).transient(),
            itemOwner, itemTags,
        ]
        special.properties = [NSAttributeDescription(name: "level", type: .integer32)]
        item.subentities = [special]
        tag.properties = [NSAttributeDescription(name: "label", type: .string), tagItems]
        chapter.properties = [NSAttributeDescription(name: "title", type: .string), chapterOwner]
        profile.properties = [NSAttributeDescription(name: "bio", type: .string), profileOwner]
        node.properties = [NSAttributeDescription(name: "name", type: .string), nodeChildren, nodeParent]
        account.properties = [
            NSAttributeDescription(name: "email", type: .string),
            NSAttributeDescription(name: "region", type: .string),
            NSAttributeDescription(name: "code", type: .integer64),
        ]
        account.uniquenessConstraints = [["email"], ["region", "code"]]
        premium.properties = [NSAttributeDescription(name: "tier", type: .integer16)]
        account.subentities = [premium]
        return NSManagedObjectModel(entities: [owner, item, special, tag, chapter, profile, node, account, premium])
    }

    private static func pair(_ a: NSRelationshipDescription, _ b: NSRelationshipDescription) {
        a.inverseRelationship = b
        b.inverseRelationship = a
    }
}

extension NSAttributeDescription {
    fileprivate func transient() -> NSAttributeDescription {
        isTransient = true
        return self
    }
}
