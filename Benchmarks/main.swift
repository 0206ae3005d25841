print("coredata-benchmark: workloads not written yet")
