from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "notifications"
    verbose_name = "Notifications (event feed, webhooks, push notifications)"

    def ready(self) -> None:
        from .push_providers import push_providers_configure

        push_providers_configure()  # FCM's Firebase app and the providers' endpoints, from settings
