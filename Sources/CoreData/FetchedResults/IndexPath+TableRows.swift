#if !canImport(UIKit) && !canImport(AppKit)
/// UIKit's and AppKit's index-path accessors for tables and collections, which Foundation on Linux lacks. An
/// addition to Foundation (on Apple's platforms these come from UIKit and AppKit), so that code using a fetched
/// results controller's index paths compiles unchanged. Reading `section` of an empty index path, or `row`/`item`
/// of one with fewer than two indexes, is a programming error, as on Apple's platforms.
extension IndexPath {
    /// An index path for a row in a section of a table.
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// An index path for an item in a section of a collection.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The section: the first index.
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }

    /// The row in the section: the second index.
    public var row: Int {
        get { self[1] }
        set { self[1] = newValue }
    }

    /// The item in the section: the second index.
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
#endif
