#if canImport(Glibc)
import Glibc
#endif

/// The tool's one way to standard output: through the C library's buffer, as `print` writes, flushed at once.
/// Text written straight to the file descriptor beside `print`'s buffered text would come out of order when
/// standard output is a pipe or a file (the demo prints its steps and runs commands in one process).
enum StandardOutput {
    static func write(_ text: String) {
        print(text, terminator: "")
        fflush(nil)  // every output stream; standard output is the only one the tool writes through the C library
    }
}
