import CoreData
import Foundation
import GeneratedModelExample
import Testing

/// Relationships of the generated classes: a to-one/to-many pair, a many-to-many, an ordered to-many and an
/// entity hierarchy, each saved, reopened and fetched.
@Suite @MainActor struct GeneratedRelationshipTests {
    @Test(arguments: CompanyStore.allCases)
    func toOneAndToManyStayInverse(_ store: CompanyStore) throws {
        let stack = try CompanyStack(store)
        let research = Department(context: stack.context)
        research.name = "Research"
        research.code = 42
        let ada = Person(context: stack.context)
        ada.name = "Ada"
        ada.department = research
        let grace = Person(context: stack.context)
        grace.name = "Grace"
        research.addToEmployees(grace)
        #expect(research.employees == [ada, grace])
        #expect(grace.department == research)
        try stack.context.save()

        let context = try stack.reopened()
        let department = try fetchOne(Department.fetchRequest() as NSFetchRequest<Department>, in: context, "code == %d", 42)
        #expect(Set(department.employees.compactMap(\.name)) == ["Ada", "Grace"])
        let request: NSFetchRequest<Person> = Person.fetchRequest()
        let found = try fetchOne(request, in: context, "department.name == %@ AND name == %@", "Research", "Grace")
        #expect(found.department === department)
        department.removeFromEmployees(found)
        #expect(found.department == nil)
        try context.save()
        #expect(try stack.reopened().count(for: Self.people("department.code == %d", 42)) == 1)
    }

    @Test(arguments: CompanyStore.allCases)
    func manyToManyFromBothSides(_ store: CompanyStore) throws {
        let stack = try CompanyStack(store)
        let (ada, grace) = (Person(context: stack.context), Person(context: stack.context))
        ada.name = "Ada"
        grace.name = "Grace"
        let engine = Project(context: stack.context)
        engine.title = "Engine"
        let compiler = Project(context: stack.context)
        compiler.title = "Compiler"
        ada.addToProjects([engine, compiler])
        compiler.addToMembers(grace)
        #expect(engine.members == [ada])
        #expect(grace.projects == [compiler])
        try stack.context.save()

        let context = try stack.reopened()
        let projects: NSFetchRequest<Project> = Project.fetchRequest()
        let found = try fetchOne(projects, in: context, "title == %@", "Compiler")
        #expect(Set(found.members.compactMap(\.name)) == ["Ada", "Grace"])
        let people = Self.people("ANY projects.title == %@", "Engine")
        #expect(try context.fetch(people).compactMap(\.name) == ["Ada"])
        let both = try fetchOne(Person.fetchRequest() as NSFetchRequest<Person>, in: context, "projects.@count == 2")
        #expect(both.name == "Ada")
        both.removeFromProjects(found)
        try context.save()
        #expect(try stack.reopened().count(for: Self.people("ANY projects.title == %@", "Compiler")) == 1)
    }

    @Test(arguments: CompanyStore.allCases)
    func orderedToManyKeepsItsOrder(_ store: CompanyStore) throws {
        let stack = try CompanyStack(store)
        let project = Project(context: stack.context)
        project.title = "Launch"
        for (index, title) in ["Design", "Build", "Test", "Ship"].enumerated() {
            let milestone = Milestone(context: stack.context)
            milestone.title = title
            milestone.done = index < 2
            project.addToMilestones(milestone)
        }
        let test = try #require(project.milestones.object(at: 2) as? Milestone)
        #expect(test.project == project)
        project.removeFromMilestones(test)
        project.addToMilestones(test)
        let review = Milestone(context: stack.context)
        review.title = "Review"
        project.insertIntoMilestones(review, at: 1)
        #expect(Self.titles(project) == ["Design", "Review", "Build", "Ship", "Test"])
        try stack.context.save()

        let context = try stack.reopened()
        let found = try fetchOne(Project.fetchRequest() as NSFetchRequest<Project>, in: context, "title == %@", "Launch")
        #expect(Self.titles(found) == ["Design", "Review", "Build", "Ship", "Test"])
        let milestones: NSFetchRequest<Milestone> = Milestone.fetchRequest()
        milestones.predicate = NSPredicate(format: "project.title == %@ AND done == NO", "Launch")
        #expect(Set(try context.fetch(milestones).compactMap(\.title)) == ["Review", "Ship", "Test"])

        let launch = Milestone(context: context)
        launch.title = "Launch party"
        found.replaceMilestones(at: 3, with: launch)
        found.removeFromMilestones(at: 0)
        try context.save()
        let third = try stack.reopened()  // kept: objects need their context alive to load
        let again = try fetchOne(Project.fetchRequest() as NSFetchRequest<Project>, in: third, "title == %@", "Launch")
        #expect(Self.titles(again) == ["Review", "Build", "Launch party", "Test"])
    }

    @Test(arguments: CompanyStore.allCases)
    func handWrittenClassBesideGeneratedOnes(_ store: CompanyStore) throws {
        let stack = try CompanyStack(store)
        let office = Office(context: stack.context)
        office.city = "Lyon"
        office.floors = 3
        let research = Department(context: stack.context)
        research.name = "Research"
        research.office = office
        #expect(office.departments == [research])
        try stack.context.save()

        let context = try stack.reopened()
        let found = try fetchOne(Department.fetchRequest() as NSFetchRequest<Department>, in: context, "office.city == %@", "Lyon")
        let foundOffice = try #require(found.office)
        #expect(foundOffice.label == "Lyon (3 floors)")
        #expect(foundOffice.departments.compactMap(\.name) == ["Research"])
    }

    /// The titles of a project's milestones, in order.
    static func titles(_ project: Project) -> [String] {
        project.milestones.array.compactMap { ($0 as? Milestone)?.title }
    }

    @Test(arguments: CompanyStore.allCases)
    func subentityObjectsAreTheirGeneratedSubclass(_ store: CompanyStore) throws {
        let stack = try CompanyStack(store)
        let boss = Manager(context: stack.context)
        boss.name = "Boss"
        boss.budget = 500_000
        let ada = Person(context: stack.context)
        ada.name = "Ada"
        ada.manager = boss
        boss.addToReports(Person(context: stack.context))
        boss.reports.first { $0 != ada }?.name = "Grace"
        try stack.context.save()

        let context = try stack.reopened()
        let everyone = Self.people("TRUEPREDICATE")
        everyone.sortDescriptors = [NSSortDescriptor(key: "name", ascending: true)]
        let people = try context.fetch(everyone)
        #expect(people.compactMap(\.name) == ["Ada", "Boss", "Grace"])
        let manager = try #require(people[1] as? Manager, "a Person fetch returns the Manager as its generated class")
        #expect(manager.budget == 500_000)
        #expect(Set(manager.reports.compactMap(\.name)) == ["Ada", "Grace"])
        #expect(people[0].manager === manager)

        let managers: NSFetchRequest<Manager> = Manager.fetchRequest()
        managers.predicate = NSPredicate(format: "budget > %lld AND reports.@count == 2", Int64(100_000))
        #expect(try context.fetch(managers).compactMap(\.name) == ["Boss"])
        #expect(try context.count(for: Self.people("manager.name == %@", "Boss")) == 2)
    }

    /// A `Person` fetch request with a predicate.
    static func people(_ format: String, _ arguments: CVarArg...) -> NSFetchRequest<Person> {
        let request: NSFetchRequest<Person> = Person.fetchRequest()
        request.predicate = NSPredicate(format: format, argumentArray: arguments)
        return request
    }
}
