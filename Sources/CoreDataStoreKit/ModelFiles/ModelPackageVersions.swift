/// Finds the current version inside a versioned model package: a `.xcdatamodeld` (Xcode's source) or a
/// `.momd` (Apple's compiled form, or ours).
package enum ModelPackageVersions {
    /// The `.xcdatamodel` folders of a `.xcdatamodeld`, sorted by name.
    package static func sourceVersions(in package: URL) -> [URL] {
        children(of: package).filter { $0.pathExtension == "xcdatamodel" }
    }

    /// The current `.xcdatamodel` of a `.xcdatamodeld`: the one `.xccurrentversion` names, else the only one,
    /// else the last by name.
    /// - Throws: `invalidModelFile` (259) naming `.xccurrentversion` when it is unreadable or names a version
    ///   that is not in the package; `modelFileMissing` (260) for a package with no versions.
    package static func currentSourceVersion(of package: URL) throws -> URL {
        let versions = sourceVersions(in: package)
        let marker = package.appendingPathComponent(".xccurrentversion")
        if FileManager.default.fileExists(atPath: marker.path) {
            let name = try plistString(marker, key: "_XCCurrentVersionName")
            guard let version = versions.first(where: { $0.lastPathComponent == name }) else {
                throw CoreDataError.invalidModelFile(.init(file: marker),
                                                     reason: "the current version \"\(name)\" is not in the package (it has: \(versions.map(\.lastPathComponent).joined(separator: ", ")))")
            }
            return version
        }
        guard let last = versions.last else {
            throw CoreDataError.modelFileMissing(.init(file: package), reason: "the package holds no .xcdatamodel version")
        }
        return last
    }

    /// The current model file of a `.momd`: the `.mom` that `VersionInfo.plist` names, else (no
    /// `VersionInfo.plist`, or one without `NSManagedObjectModel_CurrentVersionName`) the only `.mom`.
    /// - Throws: `invalidModelFile` (259) naming `VersionInfo.plist` when it is unreadable, names a missing
    ///   version, or names none while the package holds several `.mom` files; `modelFileMissing` (260) when
    ///   there is no `.mom`.
    static func currentCompiledVersion(of package: URL) throws -> URL {
        if let named = try namedCompiledVersion(of: package) { return named }
        let moms = compiledVersions(in: package)
        guard moms.count == 1, let only = moms.first else {
            if moms.isEmpty { throw CoreDataError.modelFileMissing(.init(file: package), reason: "the package holds no .mom") }
            let info = package.appendingPathComponent("VersionInfo.plist")
            throw CoreDataError.invalidModelFile(.init(file: FileManager.default.fileExists(atPath: info.path) ? info : package),
                                                 reason: "nothing says which of the package's \(moms.count) .mom files is current (no NSManagedObjectModel_CurrentVersionName)")
        }
        return only
    }

    /// The `.mom` that `VersionInfo.plist` names as current; nil when there is no `VersionInfo.plist` or it
    /// names no current version.
    /// - Throws: `invalidModelFile` (259) naming `VersionInfo.plist` when it is unreadable or names a version
    ///   the package does not hold.
    static func namedCompiledVersion(of package: URL) throws -> URL? {
        let info = package.appendingPathComponent("VersionInfo.plist")
        guard FileManager.default.fileExists(atPath: info.path),
              let name = try plistString(info, key: "NSManagedObjectModel_CurrentVersionName", required: false) else { return nil }
        let file = package.appendingPathComponent(name + ".mom")
        guard FileManager.default.fileExists(atPath: file.path) else {
            throw CoreDataError.invalidModelFile(.init(file: info), reason: "the current version \"\(name)\" has no \(name).mom in the package")
        }
        return file
    }

    /// The `.mom` files of a `.momd`, sorted by name (an `.omo` beside them is Apple's optimized copy of one).
    static func compiledVersions(in package: URL) -> [URL] {
        children(of: package).filter { $0.pathExtension == "mom" }
    }

    /// Every version of a package, by name, with the file that holds it and whether it is the current one.
    /// A package whose current version cannot be told (a `.momd` of several `.mom` files and no current
    /// version name) lists every version as not current.
    /// - Throws: as `currentSourceVersion(of:)` / `currentCompiledVersion(of:)`, except for that case.
    static func versions(of package: URL, compiled: Bool) throws -> [(name: String, file: URL, isCurrent: Bool)] {
        let files = compiled ? compiledVersions(in: package) : sourceVersions(in: package)
        guard !files.isEmpty else {
            throw CoreDataError.modelFileMissing(.init(file: package), reason: compiled ? "the package holds no .mom" : "the package holds no .xcdatamodel version")
        }
        let current = compiled ? try namedCompiledVersion(of: package) ?? (files.count == 1 ? files.first : nil)
            : try currentSourceVersion(of: package)
        return files.map { ($0.deletingPathExtension().lastPathComponent, $0, $0.standardizedFileURL == current?.standardizedFileURL) }
    }

    private static func children(of folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    private static func plistString(_ file: URL, key: String) throws -> String {
        guard let value = try plistString(file, key: key, required: true) else {
            throw CoreDataError.invalidModelFile(.init(file: file), reason: "no \(key)")
        }
        return value
    }

    /// The string under `key` in the property list `file`; nil when the key is absent and not `required`.
    /// - Throws: `invalidModelFile` (259) when the file is not a property list dictionary, or the value is
    ///   not a non-empty string (or absent while `required`).
    private static func plistString(_ file: URL, key: String, required: Bool) throws -> String? {
        guard let data = try? Data(contentsOf: file),
              let plist = BinaryPropertyListCheck.propertyList(from: data) as? [String: Any]
        else { throw CoreDataError.invalidModelFile(.init(file: file), reason: "not a readable property list") }
        guard let raw = plist[key] else {
            if required { throw CoreDataError.invalidModelFile(.init(file: file), reason: "no \(key)") }
            return nil
        }
        guard let value = raw as? String, !value.isEmpty else {
            throw CoreDataError.invalidModelFile(.init(file: file), reason: "\(key) is not a version name")
        }
        return value
    }
}
