# One image for web (gunicorn), worker and beat (docker-compose.yml).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=okgin_project.settings.production
WORKDIR /app
COPY pyproject.toml ./
COPY okgin_project ./okgin_project
COPY games ./games
COPY players ./players
COPY manage.py ./
RUN pip install --no-cache-dir . && useradd --system okgin
USER okgin
EXPOSE 8000
CMD ["gunicorn", "okgin_project.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3"]
