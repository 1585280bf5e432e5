"""Helpers of the integration tier: a real Debian root, a real signed apt repository laid out like
repo.radeon.com, a real PEP 503 package index, all on 127.0.0.1.

Nothing here fakes apt, dpkg or pip: the tests run the real tools against stand-in packages.
Modules:

* :mod:`.procs` -- small subprocess helpers and the "can this machine run the tier" checks;
* :mod:`.gpgkeys` -- throwaway OpenPGP keys (one per session) that sign the test repositories;
* :mod:`.debs` -- stand-in ``.deb`` packages built with ``dpkg-deb``;
* :mod:`.aptrepo` -- the repo.radeon.com-like site and a competing "distribution" archive;
* :mod:`.httpserve` -- an HTTP server in a thread with a switch to make it unreachable;
* :mod:`.wheels` -- stand-in wheels (torch, torchvision, torchaudio, pytorch-triton-rocm, triton)
  and the download.pytorch.org-like index;
* :mod:`.debroot` -- the mmdebstrap-made root, cached as a tarball, entered with chroot or bwrap;
* :mod:`.sites` -- all of it served: the apt world (radeon-like site on 127.0.0.1, distribution
  archive on 127.0.0.2) and the package index (127.0.0.3), and helpers that point a root at them;
* :mod:`.wizard` -- rocm-wizard run inside a root (the repository bind-mounted read-only), and the
  sysfs entries of a real card for a root that needs a GPU;
* :mod:`.venvs`, :mod:`.checks` -- venvs on the host python; the scenario tests' assertions.
"""
