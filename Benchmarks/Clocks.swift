// The clocks of the PostgreSQL benchmark besides `seconds(_:)` (main.swift): one shared by the processes of a
// machine, and the CPU time of this process.
import Foundation

/// Nanoseconds of CLOCK_MONOTONIC, comparable between the processes of one machine.
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// User plus system CPU seconds of this process so far (CLOCK_PROCESS_CPUTIME_ID).
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
