/// One version of a versioned model package (`.xcdatamodeld` or `.momd`): its name, the file that holds it,
/// whether it is the package's current version, and its model. An addition to Apple's API.
///
/// Apple's Core Data finds the model a store was saved with among a package's versions by the version hashes
/// the store records (`NSStoreModelVersionHashes`); `NSManagedObjectModel.version(ofModelAt:matchingStoreMetadata:)`
/// applies the same rule.
///
/// ```swift
/// let metadata = try NSPersistentStoreCoordinator.metadataForPersistentStore(type: .sqlite, at: storeURL)
/// if let saved = try NSManagedObjectModel.version(ofModelAt: packageURL, matchingStoreMetadata: metadata) {
///     print("saved with \(saved.name)")
/// }
/// ```
public struct ModelVersion: Sendable {
    /// The version's name: its file name without the extension (`SampleModel2` for `SampleModel2.xcdatamodel`
    /// or `SampleModel2.mom`).
    public let name: String
    /// The `.xcdatamodel` folder or `.mom` file that holds the version.
    public let url: URL
    /// Whether the package names this version as current (`.xccurrentversion`, `VersionInfo.plist`). In a
    /// `.momd` with several `.mom` files and no current version name, no version is current.
    public let isCurrent: Bool
    /// The version's model; its `versionedPackageURL` is the package.
    public let model: NSManagedObjectModel

    /// Whether a store whose metadata is `metadata` was saved with this version: the metadata records version
    /// hashes, and each entity it names is in this version with the same hash (a store of one configuration
    /// names only that configuration's entities).
    public func matches(storeMetadata metadata: [String: Any]) -> Bool {
        guard let stored = metadata[NSStoreModelVersionHashesKey] as? [String: Any], !stored.isEmpty else { return false }
        let hashes = model.entityVersionHashesByName
        return stored.allSatisfy { name, value in (value as? Data).map { hashes[name] == $0 } ?? false }
    }
}

extension NSManagedObjectModel {
    /// Every version of the model package at `url`, sorted by name: each `.xcdatamodel` of a `.xcdatamodeld`,
    /// each `.mom` of a `.momd` (an `.omo` is not a version of its own). A single model file (`.xcdatamodel`,
    /// `.mom`) gives one version, current. An addition to Apple's API.
    /// - Throws: 260 for a missing file or a package without versions; 259 for a version that cannot be
    ///   read or an unreadable `.xccurrentversion` / `VersionInfo.plist`; 3328 for an unsupported format.
    public static func versions(ofModelAt url: URL) throws -> [ModelVersion] {
        let kind = try ModelFileLoader.kind(of: url)
        switch kind {
        case .sourceVersion, .compiledFile:
            let model = try load(contentsOf: url)
            return [ModelVersion(name: url.deletingPathExtension().lastPathComponent, url: url, isCurrent: true, model: model)]
        case .sourcePackage, .compiledPackage:
            return try ModelPackageVersions.versions(of: url, compiled: kind == .compiledPackage).map { version in
                let model = try load(contentsOf: version.file)
                model.versionedPackageURL = url
                return ModelVersion(name: version.name, url: version.file, isCurrent: version.isCurrent, model: model)
            }
        }
    }

    /// The version of the package at `url` that a store whose metadata is `metadata` was saved with
    /// (`ModelVersion.matches(storeMetadata:)`): the current version when it matches, else the first matching
    /// one by name; nil when none matches or the metadata records no version hashes. An addition to Apple's API.
    /// - Throws: as `versions(ofModelAt:)`.
    public static func version(ofModelAt url: URL, matchingStoreMetadata metadata: [String: Any]) throws -> ModelVersion? {
        let matching = try versions(ofModelAt: url).filter { $0.matches(storeMetadata: metadata) }
        return matching.first(where: \.isCurrent) ?? matching.first
    }
}
