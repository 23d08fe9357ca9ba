"""``GET /api/v1/``: an index of the API for clients that start from its root."""
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.reverse import reverse
from rest_framework.views import APIView

INDEX_LINKS = {  # link name -> URL name
    "schema": "schema", "docs": "swagger-ui", "register": "register", "token": "token-obtain",
    "token_refresh": "token-refresh", "me": "me", "games": "game-list",
    "lobby": "game-lobby", "events": "event-list", "webhooks": "webhook-list",
}


class ApiIndexSerializer(serializers.Serializer):
    version = serializers.CharField(help_text='The API version, "v1".')
    links = serializers.DictField(child=serializers.URLField(), help_text="Absolute URLs by name: "
                                  + ", ".join(INDEX_LINKS) + ".")


class ApiIndexApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes = []

    @extend_schema(operation_id="api_index", responses={200: ApiIndexSerializer},
                   summary="The API's entry point: links to the schema, the docs and the main collections.")
    def get(self, request):
        return Response({"version": "v1", "links": {
            name: reverse(url_name, request=request) for name, url_name in INDEX_LINKS.items()}})
