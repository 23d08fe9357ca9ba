"""okgin_project.negotiation: the same renderer and media type as DRF's negotiation, or the same
refusal, whatever the request asks for (the short way only skips parsing ``Accept``)."""
import pytest
from django.http import Http404
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer, StaticHTMLRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from okgin_project.negotiation import ContentNegotiation

ACCEPTS = [None, "*/*", "application/json", "application/json; indent=4", "text/html", "application/xml",
           "text/html, */*;q=0.1", "application/*", "", "*/*;q=0", "application/json;q=0.5, text/html"]
RENDERER_SETS = [[JSONRenderer()], [JSONRenderer(), BrowsableAPIRenderer()], [StaticHTMLRenderer(), JSONRenderer()],
                 [BrowsableAPIRenderer(), JSONRenderer()]]


def _choice(negotiation, request, renderers, suffix):
    try:
        renderer, media_type = negotiation.select_renderer(request, renderers, suffix)
    except NotAcceptable as exc:
        return "406", str(exc.detail)
    except Http404:  # a format no renderer has
        return "404"
    return type(renderer), media_type


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("query", ["", "?format=json", "?format=api", "?format=xml"])
@pytest.mark.parametrize("suffix", [None, "json", "api"])
def test_the_same_choice_as_drfs(accept, query, suffix):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(APIRequestFactory().get("/api/v1/games/1/" + query, **headers))
    for renderers in RENDERER_SETS:
        assert _choice(ContentNegotiation(), request, renderers, suffix) == \
            _choice(DefaultContentNegotiation(), request, renderers, suffix), renderers


def test_the_api_uses_it_and_answers_json(alice):
    from django.conf import settings

    assert settings.REST_FRAMEWORK["DEFAULT_CONTENT_NEGOTIATION_CLASS"] == "okgin_project.negotiation.ContentNegotiation"
    r = alice.get("/api/v1/games/", HTTP_ACCEPT="application/json")
    assert r.status_code == 200 and r["Content-Type"] == "application/json"
    r = alice.get("/api/v1/games/", HTTP_ACCEPT="application/xml")
    assert r.status_code == 406 and r.json()["error"]["code"] == "not_acceptable"
