import CoreDataStoreKit
import Foundation

/// The model property names given to `@Managed("name")`, each numbered once per process, so that a
/// `@Managed` property costs each object two bytes (the number) instead of an optional string's sixteen.
///
/// Number 0 means "no name given" (`@Managed()`); names are numbered from 1 in the order they are first seen
/// and never forgotten (they come from source code, so there are few). Numbering a name takes no lock once the
/// calling thread has seen it; looking a number up takes a lock, and happens once per property and entity
/// (`ManagedSlotCache`).
///
/// `@unchecked Sendable`: `names` and `numbers` are read and written only under `lock`; `seen` is per thread
/// (`ThreadLocal`).
@usableFromInline
final class ManagedPropertyNames: @unchecked Sendable {
    @usableFromInline static let shared = ManagedPropertyNames()

    private let lock = NSLock()
    private var names: [String] = [""]
    private var numbers: [String: UInt16] = [:]

    /// Each thread's numbers of the names it has seen.
    private final class Seen { var numbers: [String: UInt16] = [:] }
    private let seen = ThreadLocal { Seen() }

    /// The number of `name` (at least 1).
    @usableFromInline
    func number(of name: String) -> UInt16 {
        let local = seen.value
        if let known = local.numbers[name] { return known }
        lock.lock()
        let number: UInt16
        if let known = numbers[name] {
            number = known
        } else {
            precondition(names.count <= Int(UInt16.max), "More than 65,535 different names given to @Managed(_:) in one process.")
            number = UInt16(names.count)
            names.append(name)
            numbers[name] = number
        }
        lock.unlock()
        local.numbers[name] = number
        return number
    }

    /// The name numbered `number`, or nil for 0 (no name given) and numbers never given.
    func name(_ number: UInt16) -> String? {
        guard number != 0 else { return nil }
        lock.lock()
        defer { lock.unlock() }
        return Int(number) < names.count ? names[Int(number)] : nil
    }
}
