"""okgin's URLs plus ``bench/reference/django/`` (``loadstack.reference.django_reference``)."""
from django.urls import path

from okgin_project.urls import handler404, handler500, urlpatterns as okgin_urlpatterns  # noqa: F401

from .reference import django_reference

urlpatterns = [path("bench/reference/django/", django_reference), *okgin_urlpatterns]
