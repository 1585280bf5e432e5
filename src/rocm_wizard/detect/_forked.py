"""Answers that the recogniser's forked worker works out after its share, read only when asked.

:func:`rocm_wizard.detect.recognize.recognize_many_also` may share a large folder of pastes with
one forked worker.  Once the worker has sent its share of the recognising, it goes on with work
this process does later anyway -- each ``later`` function of the call on every distinct text, or
on each of the worker's own segments of one kind, functions whose answer depends on the text
alone -- and sends each function's answers as one frame of the same pipe, in the order given.
This process meanwhile goes on with the probes; the first :func:`answer` for a function reads the
frames up to its own (waiting for the worker where it is not done yet), and after the last frame
the worker is waited for.  A function of a kind is worked out by this process too, on its own
segments of the kind, while the worker ends its share: those answers are handed out first.  Each
answer is handed out once (a second ask for the same text is worked out here): no two callers
share one answer's objects, as when each works its own out.

Anything short -- a worker that failed, was killed or sent less, a function it could not work out
-- is :data:`NOT_KNOWN`, and the caller works the answer out itself (:func:`worked_out`): the answers
are the same either way.  Imported by probes that also run on a live system, so it imports nothing
else of the package.
"""
from __future__ import annotations

import os
from typing import Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

T = TypeVar("T")


class _NotKnown:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NOT_KNOWN"


NOT_KNOWN: object = _NotKnown()

# the key of a later function asked once of all the call's texts, in order (``recognize.WHOLE``)
WHOLE = "\0whole"


class Pending:
    """A forked worker that is still to send ``frames`` (``[(name, texts)]``: each frame the
    function's answers for its texts, in that order) through the pipe ``fd``."""

    def __init__(self, pid: int, fd: int, frames: Sequence[Tuple[str, Sequence[str]]] = (),
                 own: Optional[Dict[str, Dict[str, List[object]]]] = None,
                 whole: Optional[List[str]] = None) -> None:
        self.pid: Optional[int] = pid
        self.fd: Optional[int] = fd
        self.names = [name for name, _texts in frames]
        self.texts = [list(texts) for _name, texts in frames]
        self.got: Dict[str, Dict[str, List[object]]] = {}
        self.read = 0  # frames read so far (a function's answers may come in several: recognize.EACH)
        # answers this process worked out itself while the worker ended its share ({name: {text:
        # [answer, ...]}}), handed out first
        self.own = own or {}
        # the texts a function of them all (key WHOLE) was asked of, in order
        self.whole = whole
        self._buf = b""

    def answer(self, name: str, text: str, steal: bool = False) -> object:
        """The worker's answer of ``name`` for ``text`` (read when needed: waiting for the worker), or
        NOT_KNOWN.  ``steal``: rather than wait for a frame not there yet (once the tasks of
        :func:`while_waiting` are done), NOT_KNOWN at once -- the caller works this one answer out
        itself meanwhile, and asks again for the next."""
        if name not in self.names:
            return NOT_KNOWN
        mine = self.own.get(name)
        if mine and isinstance(text, str):
            left = mine.get(text)
            if left:
                return left.pop(0)
        while self.fd is not None and (name not in self.got or self._to_come(name, text)):
            if steal and not self._buf:
                _idle_until_ready(self.fd)
                if not _readable(self.fd):
                    return NOT_KNOWN
            self._next_frame()
        values = self.got.get(name)
        if values is None or not isinstance(text, str):
            return NOT_KNOWN
        left = values.get(text)
        if not left:
            return NOT_KNOWN
        return left.pop(0)  # (handed out once)

    def _to_come(self, name: str, text: object) -> bool:
        """Whether a frame not read yet holds ``name``'s answer for ``text`` (``name``'s answers already read lack it)."""
        got = self.got.get(name)
        if got is not None and isinstance(text, str) and got.get(text):
            return False
        return any(self.names[k] == name and text in self.texts[k] for k in range(self.read, len(self.names)))

    def _next_frame(self) -> None:
        """Read the next frame (blocking) and keep its answers; the end of the pipe, or anything
        short or unreadable, ends the worker and leaves the rest not known."""
        import pickle

        done = False
        try:
            if not self._buf:
                _idle_until_ready(self.fd)  # type: ignore[arg-type]
            head = self._read(8)
            body = self._read(int.from_bytes(head, "big")) if head is not None else None
            values = pickle.loads(body) if body is not None else None  # (this process's own fork wrote it)
            k = self.read
            name, texts = self.names[k], self.texts[k]
            if isinstance(values, list) and len(values) == len(texts):
                by_text = self.got.setdefault(name, {})
                for t, value in zip(texts, values):
                    by_text.setdefault(t, []).append(value)
                self.read = k + 1
                done = self.read == len(self.names)
                if done:
                    self.end(kill=False)
                return
        except Exception:
            pass
        except BaseException:  # (interrupted while waiting: the worker is not wanted any more)
            self.end()
            raise
        self.end()

    def _read(self, size: int) -> Optional[bytes]:
        """Exactly ``size`` bytes of the pipe, or None at its end."""
        assert self.fd is not None
        chunks = [self._buf] if self._buf else []
        have = len(self._buf)
        while have < size:
            b = os.read(self.fd, max(size - have, 1 << 16))
            if not b:
                return None
            chunks.append(b)
            have += len(b)
        data = b"".join(chunks)
        self._buf = data[size:]
        return data[:size]

    def end(self, kill: bool = True) -> None:
        """Close the pipe and wait for the worker (ended first unless ``kill`` is False: it has sent
        everything and is exiting)."""
        fd, pid = self.fd, self.pid
        self.fd = self.pid = None
        if fd is not None:
            try:
                os.close(fd)
            except OSError:
                pass
        if pid is not None:
            if kill:
                import signal

                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            try:
                os.waitpid(pid, 0)
            except OSError:
                pass


_pending: Optional[Pending] = None
_at_exit = False
# work this process may do while it waits for the worker's next frame (``while_waiting``)
_idle: List[Callable[[], object]] = []


def while_waiting(*tasks: Callable[[], object]) -> None:
    """Work this process does later anyway and may do instead while it would wait for the worker's
    next frame (a command's own imports, the step after detection): each task is run at most once,
    in order, only while nothing is there to read yet; what is not run by then is left to its own
    time.  A task that fails is dropped.  Called with none, forgets those left."""
    _idle[:] = list(tasks)


def _readable(fd: int) -> bool:
    """Whether the pipe ``fd`` has something to read (or its end) right now."""
    import select

    try:
        return bool(select.select([fd], [], [], 0)[0])
    except (OSError, ValueError):
        return True  # (reading tells)


def _idle_until_ready(fd: int) -> None:
    """Run the tasks of :func:`while_waiting` one by one while ``fd`` has nothing to read."""
    while _idle:
        if _readable(fd):
            return
        task = _idle.pop(0)
        try:
            task()
        except Exception:
            pass


def hold(pending: Pending) -> None:
    """``pending`` answers :func:`answer` from now on (a worker held before is ended); it is ended at
    the latest when this process exits."""
    global _pending, _at_exit
    drop()
    _pending = pending
    if not _at_exit:
        import atexit

        atexit.register(drop)
        _at_exit = True


def drop() -> None:
    """End the worker held, if any (its answers not read yet are lost)."""
    global _pending
    p, _pending = _pending, None
    if p is not None:
        p.end()


# whether worked_out works an answer out here rather than wait for a frame the worker has not sent yet
STEAL = True


def answer(name: str, text: str, steal: bool = False) -> object:
    """The held worker's answer of function ``name`` for ``text``, or :data:`NOT_KNOWN` (``steal``: see
    :meth:`Pending.answer`)."""
    p = _pending
    if p is None:
        return NOT_KNOWN
    return p.answer(name, text, steal)


def worked_out(name: str, fn: Callable[[str], T], text: str) -> T:
    """``fn(text)``: the forked worker's answer where it worked it out as ``name`` and has sent it by
    now (or the frame it is in is the next one to come and :data:`STEAL` is off), else worked out here
    -- answers of a pure function, the same either way: while the worker is late, this process works
    the texts out in turn itself, and takes the worker's once they are there."""
    got = answer(name, text, STEAL)
    if got is NOT_KNOWN:
        return fn(text)
    return got  # type: ignore[return-value]


def worked_out_whole(name: str, texts: Sequence[str]) -> object:
    """The held worker's answer of the function ``name`` of all of ``texts`` (in order), or
    :data:`NOT_KNOWN` where it has none for those very texts: the caller then works it out itself."""
    p = _pending
    if p is None or p.whole is None or list(texts) != p.whole:  # (the same objects: compared by identity first)
        return NOT_KNOWN
    return p.answer(name, WHOLE)


def names_held() -> List[str]:
    """The functions the held worker answers (for tests)."""
    return list(_pending.names) if _pending is not None else []
