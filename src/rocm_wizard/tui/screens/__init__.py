"""The wizard's screens, one module each, in flow order: detection, findings, paths, options,
review, execute, verify, done."""
