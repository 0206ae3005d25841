extension NSManagedObjectModel {
    /// A copy of the stored fetch request `name` with each `$VARIABLE` in its predicate replaced by
    /// `variables[VARIABLE]` (Apple's method); nil when there is no such template. Variables without a value
    /// stay and evaluate to nil (Apple raises an exception).
    public func fetchRequestFromTemplate(withName name: String, substitutionVariables variables: [String: Any])
        -> NSFetchRequest<NSFetchRequestResult>? {
        guard let template = fetchRequestTemplate(forName: name) else { return nil }
        guard let copy = template.copy() as? NSFetchRequest<NSFetchRequestResult> else { return nil }
        copy.predicate = template.predicate?.withSubstitutionVariables(variables)
        return copy
    }
}
