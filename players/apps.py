from django.apps import AppConfig


class PlayersConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "players"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_delete, post_save

        from . import schema  # noqa: F401 - registers the OpenAPI auth extension
        from .authentication import auth_cache_forget, auth_cache_listen
        from .models import Player

        def forget_user(sender, instance, **kwargs):
            auth_cache_forget(instance.pk)

        def forget_player(sender, instance, **kwargs):
            auth_cache_forget(instance.user_id)  # (a deleted account's user is deleted too: forget_user)

        # Saving or deleting an account forgets it in players.authentication's cache, in this
        # process and (after commit, through the live hub) in every other.
        auth_cache_listen()
        for signal in (post_save, post_delete):
            signal.connect(forget_user, sender=get_user_model(), weak=False, dispatch_uid=f"auth_cache_user_{signal}")
            signal.connect(forget_player, sender=Player, weak=False, dispatch_uid=f"auth_cache_player_{signal}")
