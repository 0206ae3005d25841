#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A memo table per thread: lookups take no lock, each thread fills its own table on first use.
///
/// For hot paths that map a type or a key path to something computed once (the predicate evaluator's type
/// facts, `@Managed` slots). Entries are never removed; keep keys few and values small. An addition used
/// inside this package only.
package final class ThreadLocalCache<Key: Hashable, Value> {
    @usableFromInline final class Table {
        @usableFromInline var values: [Key: Value] = [:]
        @usableFromInline init() {}
    }

    @usableFromInline var key = pthread_key_t()

    package init() {
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
    }

    /// The value for `lookup` on this thread, computed with `compute` the first time this thread asks.
    @inlinable
    package func value(for lookup: Key, orCompute compute: () -> Value) -> Value {
        let table: Table
        if let raw = pthread_getspecific(key) {
            table = Unmanaged<Table>.fromOpaque(raw).takeUnretainedValue()
        } else {
            table = Table()
            pthread_setspecific(key, Unmanaged.passRetained(table as AnyObject).toOpaque())
        }
        if let known = table.values[lookup] { return known }
        let value = compute()
        table.values[lookup] = value
        return value
    }
}
