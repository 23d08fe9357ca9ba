"""OpenAPI: describe PlayerJWTAuthentication as simplejwt's Bearer scheme."""
from drf_spectacular.contrib.rest_framework_simplejwt import SimpleJWTScheme


class PlayerJWTScheme(SimpleJWTScheme):
    target_class = "players.authentication.PlayerJWTAuthentication"
    name = "jwtAuth"
