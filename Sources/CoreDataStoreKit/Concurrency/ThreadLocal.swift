#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One object per thread, made on the thread's first use: for memo tables on hot paths that must not take a
/// lock (the predicate evaluator's type facts, `@Managed` slots). The object lives as long as its thread.
/// An addition used inside this package only.
///
/// `@unchecked Sendable`: the key is written once, in `init`, before the object is shared; each thread reads and
/// writes only its own storage (`pthread_getspecific`/`pthread_setspecific` are thread-safe), so no storage
/// object is ever reached from two threads through this type; `make` is `@Sendable`.
package final class ThreadLocal<Storage: AnyObject>: @unchecked Sendable {
    /// A constant, so reading it on every access costs no exclusivity check (a `var` of a class would).
    @usableFromInline let key: pthread_key_t
    @usableFromInline let make: @Sendable () -> Storage

    package init(_ make: @escaping @Sendable () -> Storage) {
        self.make = make
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
        }
        self.key = key
    }

    /// Runs `body` with this thread's object, without retaining it (the thread keeps it alive).
    @inlinable
    package func withValue<Result>(_ body: (Storage) throws -> Result) rethrows -> Result {
        guard let raw = pthread_getspecific(key) else { return try body(value) }
        return try Unmanaged<Storage>.fromOpaque(raw)._withUnsafeGuaranteedRef(body)
    }

    /// This thread's object.
    @inlinable
    package var value: Storage {
        if let raw = pthread_getspecific(key) { return Unmanaged<Storage>.fromOpaque(raw).takeUnretainedValue() }
        let storage = make()
        pthread_setspecific(key, Unmanaged.passRetained(storage as AnyObject).toOpaque())
        return storage
    }
}
