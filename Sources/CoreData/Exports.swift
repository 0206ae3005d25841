@_exported import CoreDataStoreKit
@_exported import Foundation
