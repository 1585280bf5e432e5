"""Detection probes: one module per area (os, gpus, rocm, python, docker, access, errors).

Each module has ``probe(source, system)``: it asks the :class:`~rocm_wizard.detect.sources.Source`
for files, listings, command outputs and pastes and fills its own part of the
:class:`~rocm_wizard.model.System`.  :func:`rocm_wizard.detect.detect` runs them concurrently
(on a live system; a snapshot's probes run one after the other).  Probes must not depend on
each other's results: the merge pass in :mod:`rocm_wizard.detect` combines them.
"""
