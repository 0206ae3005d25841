/// userInfo key of a model-file error: the name of the entity the problem is in (an addition to Apple's API).
public let ModelFileEntityErrorKey = "CoreDataModelFileEntity"
/// userInfo key of a model-file error: the name of the property the problem is in (an addition to Apple's API).
public let ModelFilePropertyErrorKey = "CoreDataModelFileProperty"
/// userInfo key of a model-lookup error: every URL that was searched, as `[URL]` (an addition to Apple's API).
public let ModelFileSearchedURLsErrorKey = "CoreDataModelFileSearchedURLs"

/// Errors about model files: reading `.xcdatamodeld`, `.xcdatamodel`, `.momd` and `.mom`, and finding them.
///
/// Every message names the file, and the entity and property when the problem is inside one; the same names
/// are in userInfo under `NSFilePathErrorKey`, `ModelFileEntityErrorKey` and `ModelFilePropertyErrorKey`.
extension CoreDataError {
    /// Where in a model file a problem is.
    public struct ModelFilePlace: Sendable {
        /// The model file.
        public var file: URL
        /// The entity concerned, if the problem is in one.
        public var entity: String?
        /// The property concerned, if the problem is in one.
        public var property: String?
        /// A place in `file`, optionally narrowed to an entity and one of its properties.
        public init(file: URL, entity: String? = nil, property: String? = nil) {
            self.file = file
            self.entity = entity
            self.property = property
        }

        var text: String {
            var text = file.path
            if let entity { text += ", entity \"\(entity)\"" }
            if let property { text += ", property \"\(property)\"" }
            return text
        }

        var userInfo: [String: Any] {
            var info: [String: Any] = [NSFilePathErrorKey: file.path, NSURLErrorKey: file]
            if let entity { info[ModelFileEntityErrorKey] = entity }
            if let property { info[ModelFilePropertyErrorKey] = property }
            return info
        }
    }

    /// No file at the model's URL (260, `NSFileReadNoSuchFileError`).
    public static func modelFileMissing(_ place: ModelFilePlace, reason: String = "no such file") -> NSError {
        make(NSFileReadNoSuchFileError, "Cannot read the model at \(place.text): \(reason).", userInfo: place.userInfo)
    }

    /// A model file whose contents are invalid (259, `NSFileReadCorruptFileError`): malformed XML or archive,
    /// an unknown attribute type, a reference to an entity or property that does not exist.
    public static func invalidModelFile(_ place: ModelFilePlace, reason: String) -> NSError {
        make(NSFileReadCorruptFileError, "Invalid model file at \(place.text): \(reason).", userInfo: place.userInfo)
    }

    /// A model file in a format this package does not read (3328, `NSFeatureUnsupportedError`), such as an
    /// `.omo` file.
    public static func unsupportedModelFormat(_ place: ModelFilePlace, reason: String) -> NSError {
        make(NSFeatureUnsupportedError, "Unsupported model format at \(place.text): \(reason).", userInfo: place.userInfo)
    }

    /// A model that was looked for by name and not found (260); the message and userInfo list every place searched.
    public static func modelNotFound(named name: String, searched: [URL]) -> NSError {
        let places = searched.map(\.path).joined(separator: ", ")
        return make(NSFileReadNoSuchFileError,
                    "No model named \"\(name)\" (\(name).momd, \(name).mom or \(name).xcdatamodeld) was found. Searched: \(places).",
                    userInfo: [ModelFileSearchedURLsErrorKey: searched])
    }

    /// A model that cannot be written (512, `NSFileWriteUnknownError`).
    public static func modelWriteFailed(_ file: URL, reason: String) -> NSError {
        make(NSFileWriteUnknownError, "Cannot write the model to \(file.path): \(reason).",
             userInfo: [NSFilePathErrorKey: file.path, NSURLErrorKey: file])
    }
}
