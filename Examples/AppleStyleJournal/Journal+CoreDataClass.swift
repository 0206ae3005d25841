//
//  Journal+CoreDataClass.swift
//  Journal
//
//  As Xcode's "Create NSManagedObject Subclass…" writes it, but for the `@objc(Journal)` attribute, which only
//  Objective-C has.
//

import Foundation
import CoreData


public class Journal: NSManagedObject {

}
