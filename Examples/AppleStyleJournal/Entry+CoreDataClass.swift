//
//  Entry+CoreDataClass.swift
//  Journal
//
//  As Xcode's "Create NSManagedObject Subclass…" writes it, but for the `@objc(Entry)` attribute, which only
//  Objective-C has.
//

import Foundation
import CoreData


public class Entry: NSManagedObject {

}
