"""The daemon's life: runtime files and the instance lock, serving until a signal, supervision
with backoff, background start/stop, and service-manager units."""
