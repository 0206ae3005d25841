import CoreData
import Foundation
import Testing

/// Composite attributes (`NSCompositeAttributeDescription`) as Apple documents them: the model class, values
/// as dictionaries, validation of elements, Xcode's model files, and the SQLite store's columns. Every store's
/// round trip is the conformance case `composite/values-survive-a-reopen-and-answer-key-paths`. Its contexts are
/// main-queue contexts used outside blocks, as app code uses the view context, so the suite runs on the main actor.
@Suite @MainActor struct CompositeAttributeTests {
    nonisolated static func location() -> NSCompositeAttributeDescription {
        let location = NSCompositeAttributeDescription()
        location.name = "location"
        location.elements = [NSAttributeDescription(name: "latitude", type: .double, isOptional: false, defaultValue: 0.0),
                             NSAttributeDescription(name: "longitude", type: .double, defaultValue: 0.0),
                             NSAttributeDescription(name: "label", type: .string)]
        return location
    }

    nonisolated static func model(_ location: NSCompositeAttributeDescription = location(), constraint: Bool = false) -> NSManagedObjectModel {
        let place = NSEntityDescription(name: "Place")
        place.properties = [NSAttributeDescription(name: "name", type: .string), location]
        if constraint { place.uniquenessConstraints = [["location.latitude", "location.longitude"]] }
        return NSManagedObjectModel(entities: [place])
    }

    private let folder = FileManager.default.temporaryDirectory.appendingPathComponent("CompositeAttributeTests-\(UUID().uuidString)")

    private func context(_ model: NSManagedObjectModel, type: NSPersistentStore.StoreType = .sqlite, file: String = "Places.sqlite") throws -> NSManagedObjectContext {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: type, at: folder.appendingPathComponent(file))
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    // MARK: The model

    @Test func theClassIsAnAttributeOfTypeComposite() throws {
        let location = Self.location()
        #expect(location.attributeType == .compositeAttributeType)
        #expect(location.type == .composite)
        location.attributeType = .stringAttributeType
        #expect(location.attributeType == .compositeAttributeType, "the type cannot be changed")
        let entity = Self.model(location).entitiesByName["Place"]
        #expect(entity?.attributesByName["location"] === location)
        #expect(entity?.attributesByName["latitude"] == nil, "elements are not attributes of the entity")
    }

    @Test func copiesAreEqualAndOwnTheirElements() throws {
        let location = Self.location()
        let copy = try #require(location.copy() as? NSCompositeAttributeDescription)
        #expect(copy.isEqual(location))
        #expect(copy.elements.map(\.name) == ["latitude", "longitude", "label"])
        #expect(copy.elements[0] !== location.elements[0])
        copy.elements[1].attributeType = .floatAttributeType
        #expect(!copy.isEqual(location), "a changed element makes the composites differ")
        #expect(location.elements[1].attributeType == .doubleAttributeType, "the original keeps its element")
    }

    @Test func theVersionHashCoversTheElements() throws {
        let location = Self.location(), other = Self.location()
        #expect(location.versionHash == other.versionHash)
        other.elements[2].attributeType = .integer64AttributeType
        #expect(location.versionHash != other.versionHash)
        #expect(Self.model(location).entityVersionHashesByName["Place"] != Self.model(other).entityVersionHashesByName["Place"])
    }

    @Test func theDefaultValueIsBuiltFromTheElements() throws {
        let location = Self.location()
        let value = try #require(location.defaultValue as? [String: Any])
        #expect(Set(value.keys) == ["latitude", "longitude"])
        location.defaultValue = ["label": "ignored"]
        #expect((location.defaultValue as? [String: Any])?["label"] == nil, "setting the default changes nothing")
        let context = try context(Self.model(location))
        let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
        #expect((place.value(forKeyPath: "location.latitude") as? NSNumber)?.doubleValue == 0, "a new object starts with the defaults")
    }

    @Test(arguments: [NSAttributeType.undefinedAttributeType, .objectIDAttributeType])
    func refusedElementTypesStopAddingAStore(_ type: NSAttributeType) throws {
        let location = Self.location()
        location.elements.append(NSAttributeDescription(name: "bad", type: .init(rawValue: type)))
        let error = try #require(throws: NSError.self) { try self.context(Self.model(location)) }
        #expect(error.domain == NSCocoaErrorDomain && error.code == NSCoreDataError)
        #expect(error.localizedDescription.contains("location.bad"))
    }

    @Test func externalBinaryElementsAreRefused() throws {
        let location = Self.location()
        let data = NSAttributeDescription(name: "photo", type: .binaryData)
        data.allowsExternalBinaryDataStorage = true
        location.elements.append(data)
        let error = try #require(throws: NSError.self) { try self.context(Self.model(location)) }
        #expect(error.code == NSCoreDataError && error.localizedDescription.contains("location.photo"))
    }

    // MARK: Values and validation

    @Test func valuesConvertToTheElementTypes() throws {
        let context = try context(Self.model())
        let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
        place.setValue(["latitude": 1, "longitude": NSNumber(value: 2.5), "label": NSNull()] as [String: Any], forKey: "location")
        let value = try #require(place.value(forKey: "location") as? [String: Any])
        #expect(Set(value.keys) == ["latitude", "longitude"], "NSNull is no value")
        #expect((value["latitude"] as? NSNumber)?.doubleValue == 1)
        try context.save()
    }

    @Test func aRequiredElementWithoutAValueFailsTheSave() throws {
        let context = try context(Self.model())
        let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
        place.setValue(["longitude": 2.0], forKey: "location")
        let error = try #require(throws: NSError.self) { try context.save() }
        #expect(error.code == NSValidationMissingMandatoryPropertyError)
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "location.latitude")
    }

    @Test func anUnknownElementOrAWrongTypeFailsTheSave() throws {
        for wrong: [String: Any] in [["latitude": 1.0, "height": 3.0], ["latitude": "north"]] {
            let context = try context(Self.model(), file: "\(UUID().uuidString).sqlite")
            let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
            place.setValue(wrong, forKey: "location")
            let error = try #require(throws: NSError.self) { try context.save() }
            #expect(error.code == NSManagedObjectValidationError)
            #expect(error.localizedDescription.contains("location"))
            var value: Any? = wrong
            #expect(throws: NSError.self) { try place.validateValue(&value, forKey: "location") }
        }
    }

    @Test func aValueThatIsNotADictionaryFailsTheSave() throws {
        let context = try context(Self.model())
        let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
        place.setValue(42, forKey: "location")
        let error = try #require(throws: NSError.self) { try context.save() }
        #expect(error.code == NSManagedObjectValidationError)
    }

    @Test func predicateKeysAreCheckedAgainstTheElements() throws {
        let model = Self.model()
        let place = try #require(model.entitiesByName["Place"])
        try NSPredicate(format: "location.latitude > 0 AND location.label BEGINSWITH 'a'").validateKeys(against: place)
        try NSSortDescriptor(key: "location.longitude", ascending: true).validateKey(against: place)
        let error = try #require(throws: NSError.self) { try NSPredicate(format: "location.height > 0").validateKeys(against: place) }
        #expect(error.localizedDescription.contains("height") && error.localizedDescription.contains("location"))
        #expect(throws: NSError.self) { try NSPredicate(format: "location.latitude.degrees > 0").validateKeys(against: place) }

        // A store that checks keys (the in-memory store) refuses the fetch.
        let context = try context(model, type: .inMemory, file: "memory")
        let request = NSFetchRequest<NSManagedObject>(entityName: "Place")
        request.predicate = NSPredicate(format: "location.height > 0")
        #expect(throws: NSError.self) { _ = try context.fetch(request) }
    }

    // MARK: Xcode's model files

    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22155" systemVersion="23A344" minimumToolsVersion="Automatic" sourceLanguage="Swift">
            <entity name="Place" representedClassName="Place" syncable="YES" codeGenerationType="class">
                <attribute name="location" optional="YES" attributeType="Composite" composite="Location"/>
                <attribute name="name" optional="YES" attributeType="String"/>
            </entity>
            <composite name="Location">
                <attribute name="latitude" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
                <attribute name="longitude" optional="YES" attributeType="Double" minValueString="-180" maxValueString="180" usesScalarValueType="YES"/>
                <attribute name="city" optional="YES" attributeType="Composite" composite="City"/>
            </composite>
            <composite name="City">
                <attribute name="name" optional="YES" attributeType="String"/>
            </composite>
        </model>
        """

    private func loadModel(_ contents: String) throws -> NSManagedObjectModel {
        let modelFolder = folder.appendingPathComponent("Places-\(UUID().uuidString).xcdatamodel")
        try FileManager.default.createDirectory(at: modelFolder, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: modelFolder.appendingPathComponent("contents"))
        return try NSManagedObjectModel.load(contentsOf: modelFolder)
    }

    @Test func xcodeModelsDefineCompositesByName() throws {
        let model = try loadModel(Self.contents)
        let location = try #require(model.entitiesByName["Place"]?.attributesByName["location"] as? NSCompositeAttributeDescription)
        #expect(location.elements.map(\.name) == ["latitude", "longitude", "city"])
        #expect(location.elements[0].isOptional == false && location.elements[1].isOptional)
        let city = try #require(location.elements[2] as? NSCompositeAttributeDescription)
        #expect(city.elements.map(\.name) == ["name"])
        #expect(location.elements[1].validationPredicates.count == 2, "element rules are read")

        let context = try context(model)
        let place = NSEntityDescription.insertNewObject(forEntityName: "Place", into: context)
        place.setValue(["latitude": 1.0, "longitude": 500.0], forKey: "location")
        let error = try #require(throws: NSError.self) { try context.save() }
        #expect(error.userInfo[NSValidationKeyErrorKey] as? String == "location.longitude")
    }

    @Test(arguments: [
        ("<attribute name=\"location\" optional=\"YES\" attributeType=\"Composite\" composite=\"Nowhere\"/>", "Nowhere"),
        ("<attribute name=\"location\" optional=\"YES\" attributeType=\"Composite\" composite=\"Loop\"/>", "contains itself"),
    ])
    func badCompositeReferencesAreInvalidModels(_ attribute: String, _ named: String) throws {
        let contents = """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Place" representedClassName="Place">\(attribute)</entity>
                <composite name="Loop"><attribute name="inner" optional="YES" attributeType="Composite" composite="Loop"/></composite>
            </model>
            """
        let error = try #require(throws: NSError.self) { try loadModel(contents) }
        #expect(error.code == NSFileReadCorruptFileError)
        #expect(error.localizedDescription.contains(named), "\(error.localizedDescription)")
    }

    /// A model with a composite written as a compiled model (`.mom`) reads back with the composite, its
    /// elements in order and the same version hashes.
    @Test func compiledModelsKeepTheirComposites() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = Self.model()
        let file = folder.appendingPathComponent("Places.mom")
        try MOMArchiveWriter.archive(model, file: file).write(to: file)
        let compiled = try NSManagedObjectModel.load(contentsOf: file)
        let original = try #require(model.entitiesByName["Place"]?.attributesByName["location"] as? NSCompositeAttributeDescription)
        let location = try #require(compiled.entitiesByName["Place"]?.attributesByName["location"] as? NSCompositeAttributeDescription)
        #expect(location.elements.map(\.name) == original.elements.map(\.name))
        #expect(location.elements.map(\.attributeType) == original.elements.map(\.attributeType))
        #expect(compiled.entityVersionHashesByName == model.entityVersionHashesByName)
    }
}
