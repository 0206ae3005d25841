/// Finds the current version inside a versioned model package: a `.xcdatamodeld` (Xcode's source) or a
/// `.momd` (Apple's compiled form, or ours).
enum ModelPackageVersions {
    /// The `.xcdatamodel` folders of a `.xcdatamodeld`, sorted by name.
    static func sourceVersions(in package: URL) -> [URL] {
        children(of: package).filter { $0.pathExtension == "xcdatamodel" }
    }

    /// The current `.xcdatamodel` of a `.xcdatamodeld`: the one `.xccurrentversion` names, else the only one,
    /// else the last by name.
    /// - Throws: `invalidModelFile` (259) naming `.xccurrentversion` when it is unreadable or names a version
    ///   that is not in the package; `modelFileMissing` (260) for a package with no versions.
    static func currentSourceVersion(of package: URL) throws -> URL {
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

    /// The current model file of a `.momd`: the `.mom` that `VersionInfo.plist` names, else the only `.mom`.
    /// - Throws: `invalidModelFile` (259) naming `VersionInfo.plist` when it is unreadable or names a missing
    ///   version; `modelFileMissing` (260) when there is no `.mom`.
    static func currentCompiledVersion(of package: URL) throws -> URL {
        let info = package.appendingPathComponent("VersionInfo.plist")
        let moms = children(of: package).filter { $0.pathExtension == "mom" }
        if FileManager.default.fileExists(atPath: info.path) {
            let name = try plistString(info, key: "NSManagedObjectModel_CurrentVersionName")
            let file = package.appendingPathComponent(name + ".mom")
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw CoreDataError.invalidModelFile(.init(file: info), reason: "the current version \"\(name)\" has no \(name).mom in the package")
            }
            return file
        }
        guard moms.count == 1, let only = moms.first else {
            throw CoreDataError.modelFileMissing(.init(file: package),
                                                 reason: moms.isEmpty ? "the package holds no .mom" : "no VersionInfo.plist says which of several .mom files is current")
        }
        return only
    }

    private static func children(of folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    private static func plistString(_ file: URL, key: String) throws -> String {
        guard let data = try? Data(contentsOf: file),
              let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any]
        else { throw CoreDataError.invalidModelFile(.init(file: file), reason: "not a readable property list") }
        guard let value = plist[key] as? String, !value.isEmpty else {
            throw CoreDataError.invalidModelFile(.init(file: file), reason: "no \(key)")
        }
        return value
    }
}
