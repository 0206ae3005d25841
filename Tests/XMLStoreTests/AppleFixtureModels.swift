import CoreData
import StoreTestSupport

/// Models, written in code, for the Apple XML stores in `fixtures/apple/xml`. Names follow the apps' models
/// (camel case); the files store them upper- and lower-cased.
enum AppleFixtureModels {
    /// Apple's CoreRecipes sample (Chinese_Recipes.crx, CoreRecipesCocoaView.xml).
    static func recipes() -> NSManagedObjectModel {
        let chef = NSEntityDescription(name: "Chef"), cuisine = NSEntityDescription(name: "Cuisine")
        let ingredient = NSEntityDescription(name: "Ingredient"), measure = NSEntityDescription(name: "Measure")
        let recipe = NSEntityDescription(name: "Recipe"), media = NSEntityDescription(name: "RecipeMedia")

        let chefRecipes = NSRelationshipDescription(name: "recipes", destination: recipe, toMany: true)
        let recipeChef = NSRelationshipDescription(name: "chef", destination: chef, toMany: false)
        inverse(chefRecipes, recipeChef)
        let cuisineRecipes = NSRelationshipDescription(name: "recipes", destination: recipe, toMany: true)
        let recipeCuisines = NSRelationshipDescription(name: "cuisines", destination: cuisine, toMany: true)
        inverse(cuisineRecipes, recipeCuisines)
        let measureIngredients = NSRelationshipDescription(name: "ingredients", destination: ingredient, toMany: true)
        let ingredientMeasure = NSRelationshipDescription(name: "measure", destination: measure, toMany: false)
        inverse(measureIngredients, ingredientMeasure)
        let recipeIngredients = NSRelationshipDescription(name: "ingredients", destination: ingredient, toMany: true, deleteRule: .cascadeDeleteRule)
        recipeIngredients.minCount = 1
        let ingredientRecipe = NSRelationshipDescription(name: "recipe", destination: recipe, toMany: false)
        inverse(recipeIngredients, ingredientRecipe)
        let recipeMedia = NSRelationshipDescription(name: "recipeMedia", destination: media, toMany: true)

        chef.properties = [attribute("firstName", .string), attribute("lastName", .string), attribute("homePage", .string),
                           attribute("isIronChef", .boolean), chefRecipes]
        cuisine.properties = [attribute("name", .string), cuisineRecipes]
        ingredient.properties = [attribute("amount", .double), attribute("displayOrder", .integer16), attribute("name", .string),
                                 attribute("optional", .boolean), ingredientMeasure, ingredientRecipe]
        measure.properties = [attribute("abbreviation", .string), attribute("name", .string), measureIngredients]
        recipe.properties = [attribute("cookingTime", .integer16), attribute("detailDescription", .string),
                             attribute("directions", .binaryData), attribute("lastPreparationDate", .date),
                             attribute("name", .string), attribute("numberOfServings", .integer16),
                             attribute("preparationTime", .integer16), recipeChef, recipeCuisines, recipeIngredients, recipeMedia]
        media.properties = [attribute("caption", .string), attribute("mediaData", .binaryData)]
        return NSManagedObjectModel(entities: [chef, cuisine, ingredient, measure, recipe, media])
    }

    /// Xcode's mapping-model documents (`.xcmappingmodel/xcmapping.xml`), which are XML stores of Xcode's XDDev*
    /// entities; the attribute and relationship mappings share an abstract parent.
    static func xcodeMapping() -> NSManagedObjectModel {
        let model = NSEntityDescription(name: "XDDevMappingModel"), entityMapping = NSEntityDescription(name: "XDDevEntityMapping")
        let property = NSEntityDescription(name: "XDDevPropertyMapping")
        let attributeMapping = NSEntityDescription(name: "XDDevAttributeMapping")
        let relationshipMapping = NSEntityDescription(name: "XDDevRelationshipMapping")
        property.isAbstract = true
        property.subentities = [attributeMapping, relationshipMapping]

        let modelMappings = NSRelationshipDescription(name: "entityMappings", destination: entityMapping, toMany: true)
        let mappingModel = NSRelationshipDescription(name: "mappingModel", destination: model, toMany: false)
        inverse(modelMappings, mappingModel)
        let attributeMappings = NSRelationshipDescription(name: "attributeMappings", destination: attributeMapping, toMany: true)
        let attributeOwner = NSRelationshipDescription(name: "entityMapping", destination: entityMapping, toMany: false)
        inverse(attributeMappings, attributeOwner)
        let relationshipMappings = NSRelationshipDescription(name: "relationshipMappings", destination: relationshipMapping, toMany: true)
        let relationshipOwner = NSRelationshipDescription(name: "entityMapping", destination: entityMapping, toMany: false)
        inverse(relationshipMappings, relationshipOwner)

        model.properties = [attribute("sourceModelPath", .string), attribute("sourceModelData", .binaryData),
                            attribute("destinationModelPath", .string), attribute("destinationModelData", .binaryData), modelMappings]
        entityMapping.properties = [attribute("sourceName", .string), attribute("mappingTypeName", .string),
                                    attribute("mappingNumber", .integer16), attribute("destinationName", .string),
                                    attribute("autogenerateExpression", .boolean), attribute("sourceFilterPredicateString", .string),
                                    attribute("migrationPolicyClassName", .string), mappingModel, attributeMappings, relationshipMappings]
        property.properties = [attribute("name", .string), attribute("valueExpressionData", .binaryData)]
        attributeMapping.properties = [attributeOwner]
        relationshipMapping.properties = [attribute("sourceMappingName", .string), attribute("sourceKeyPath", .string),
                                          attribute("autogenerateExpression", .boolean), relationshipOwner]
        return NSManagedObjectModel(entities: [model, entityMapping, property, attributeMapping, relationshipMapping])
    }

    /// The options to open a fixture file with. Xcode's own model of its mapping documents is not in the
    /// fixtures and `xcodeMapping()` is not it (its version hashes differ from the ones the files record), so
    /// those files are opened as Apple allows for a model that only resembles the store's:
    /// `NSIgnorePersistentStoreVersioningOption`. Without it they are refused (`XcodeMappingHashTests`).
    static func options(for file: URL) -> [AnyHashable: Any]? {
        file.lastPathComponent.contains("xcmapping") ? [NSIgnorePersistentStoreVersioningOption: true] : nil
    }

    /// The model for a fixture file.
    static func model(for file: URL) -> NSManagedObjectModel {
        file.lastPathComponent.contains("xcmapping") ? xcodeMapping() : recipes()
    }
}
