"""Domain services: the seeds' semantics, written against the ports, free of I/O details."""
