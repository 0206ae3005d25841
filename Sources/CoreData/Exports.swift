@_exported import CoreDataModelTools
@_exported import CoreDataStoreKit
@_exported import Foundation
