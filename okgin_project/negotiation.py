"""Content negotiation of the API's responses: DRF's, with a short way for what clients send.

DRF parses the ``Accept`` header into media types and matches each against each renderer, about
1% of a web process's CPU under load (issue 14). Nearly every request sends no ``Accept``,
``*/*`` or ``application/json``, and the API's first renderer is JSON: for those DRF's answer is
that renderer with ``application/json``, given here without parsing. Any other request (another
``Accept``, ``?format=``, a format suffix, a view whose first renderer is not JSON) is negotiated
by DRF as before, including its 406 ``not_acceptable``.
"""
from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation

_JSON = "application/json"
_PLAIN_ACCEPTS = frozenset(("*/*", _JSON))


class ContentNegotiation(DefaultContentNegotiation):
    """``DEFAULT_CONTENT_NEGOTIATION_CLASS``: DRF's negotiation with the short way above."""

    def select_renderer(self, request, renderers, format_suffix=None):
        """``(renderer, media type)`` as DRF chooses them; raises DRF's ``NotAcceptable``."""
        accept = request.META.get("HTTP_ACCEPT")
        if (not format_suffix and renderers and renderers[0].media_type == _JSON
                and (accept is None or accept in _PLAIN_ACCEPTS)
                and self.settings.URL_FORMAT_OVERRIDE not in request.query_params):
            return renderers[0], _JSON
        return super().select_renderer(request, renderers, format_suffix)
