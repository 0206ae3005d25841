import Foundation

/// A query generation: a version of the stores' contents that a context can be pinned to, so that its reads keep
/// seeing that version while others save (Apple's class of the same name; see
/// `NSManagedObjectContext.setQueryGenerationFrom(_:)`).
///
/// Two kinds: `current`, which asks a context to pin itself to the newest generation at its next read, and the
/// token of one generation, read from a pinned context's `queryGenerationToken`, which pins another context of
/// the same coordinator to that same generation. Tokens are equal when they name the same generation.
///
/// A token of one generation keeps that generation alive (and, for a SQLite store, its read transaction open)
/// while it exists, as a context pinned to it does; let go of tokens you no longer need.
///
/// `@unchecked Sendable`: its one stored property is a constant, and `QueryGeneration` is thread-safe.
public final class NSQueryGenerationToken: NSObject, @unchecked Sendable {
    /// The token that asks for the stores' newest generation, taken at the context's next read.
    public static let current = NSQueryGenerationToken(generation: nil)

    /// The generation the token names; nil for `current`.
    let generation: QueryGeneration?

    init(generation: QueryGeneration?) {
        self.generation = generation
        super.init()
    }

    /// Whether `object` is a token naming the same generation (`current` equals only itself).
    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? NSQueryGenerationToken else { return false }
        guard let generation, let theirs = other.generation else { return self === other }
        return generation === theirs
    }

    public override var hash: Int {
        generation.map { ObjectIdentifier($0).hashValue } ?? ObjectIdentifier(self).hashValue
    }

    public override var description: String {
        generation.map { "<NSQueryGenerationToken: generation \(ObjectIdentifier($0))>" } ?? "<NSQueryGenerationToken: current>"
    }
}
