# One image for web (gunicorn), worker, beat and the one-shot migrate service (docker-compose.yml).
# The service is installed as a package (the wheel of this folder), never copied folder by folder.
FROM python:3.11-slim AS wheel
WORKDIR /src
COPY . .
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=okgin_project.settings.production \
    STATIC_ROOT=/app/staticfiles
COPY --from=wheel /wheels /wheels
# With the push extras: FCM (firebase-admin) and APNs (aioapns), configured by environment variables.
RUN pip install --no-cache-dir "$(ls /wheels/*.whl)[fcm,apns]" && rm -rf /wheels && useradd --system okgin
WORKDIR /app
# Static files (admin, Swagger UI, ReDoc) are collected into the image and served by WhiteNoise;
# collectstatic needs no database or secret, so placeholders are enough here.
RUN SECRET_KEY=collectstatic-only DATABASE_URL=sqlite:////tmp/unused.sqlite3 \
    django-admin collectstatic --noinput
USER okgin
EXPOSE 8000
CMD ["gunicorn", "-c", "python:okgin_project.gunicorn_conf", "okgin_project.wsgi"]
