from django.apps import AppConfig


class PlayersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "players"

    def ready(self) -> None:
        from . import schema  # noqa: F401 - registers the OpenAPI auth extension
