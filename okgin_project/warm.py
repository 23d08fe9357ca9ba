"""Objects that live as long as the process kept out of the garbage collector's full passes.

A web or worker process holds about 170,000 objects tracked by the cyclic garbage collector once
Django, DRF, the engine and the AI are imported; each full (oldest-generation) collection walks
all of them. ``gc.freeze()`` moves every object alive at that moment into a permanent generation
that collections skip: in ``benchmarks/action_profile.py`` (300 actions, a ``gc.callbacks`` timer)
the collector's time per action POST + game-view GET went from 0.75 to 0.42 ms, its full passes
from 0.37 to 0.03 ms. Reference counting still frees what becomes unreachable; only cycles among
frozen objects would be kept (start-up objects, alive for the process's life anyway).
"""
from __future__ import annotations

import gc
import logging

logger = logging.getLogger("okgin.warm")


def freeze_startup_objects(*, load_urls: bool) -> int:
    """Move every object alive now into the collector's permanent generation; with ``load_urls``
    first import the URLconf (every view, serializer and schema class) so that those are frozen
    too. Called once per process after start-up: gunicorn's ``post_worker_init``
    (``okgin_project.gunicorn_conf``), Celery's ``worker_process_init`` (``okgin_project.celery``).
    Returns the number of frozen objects."""
    if load_urls:
        from django.urls import get_resolver

        get_resolver().url_patterns  # noqa: B018 (imports every urls module and view)
    gc.collect()  # start-up garbage out first, so it is not kept forever
    gc.freeze()
    frozen = gc.get_freeze_count()
    logger.debug("froze %d start-up objects", frozen)
    return frozen
