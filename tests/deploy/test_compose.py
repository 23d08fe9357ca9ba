"""docker-compose.yml and the Dockerfile as the issue asks (no Docker needed to read them): web,
worker and beat wait for a one-shot migrate, restart unless stopped, and have healthchecks that use
/readyz, a worker ping and beat's heartbeat. The smoke test runs the same commands for real."""
import re

from tests.deploy.compose import compose_services
from tests.deploy.conftest import ROOT


def test_web_worker_and_beat_wait_for_a_successful_migrate():
    services = compose_services()
    assert services["migrate"]["command"] == ["django-admin", "migrate", "--noinput"]
    assert services["migrate"]["restart"] == "no"
    for name in ("web", "worker", "beat"):
        deps = services[name]["depends_on"]
        assert deps["migrate"] == {"condition": "service_completed_successfully"}, name
        assert deps["postgres"]["condition"] == deps["redis"]["condition"] == "service_healthy"


def test_long_running_services_restart_unless_stopped_and_have_healthchecks():
    services = compose_services()
    for name in ("postgres", "redis", "web", "worker", "beat"):
        assert services[name]["restart"] == "unless-stopped", name
        assert services[name]["healthcheck"]["test"], name
    assert "/readyz" in " ".join(services["web"]["healthcheck"]["test"])
    assert services["beat"]["healthcheck"]["test"][1:] == ["python", "-m", "okgin_project.heartbeat", "--max-age", "60"]
    assert "inspect ping" in services["worker"]["healthcheck"]["test"][1]


def test_app_services_run_production_settings_from_the_image():
    services = compose_services()
    for name in ("migrate", "web", "worker", "beat"):
        env = services[name]["environment"]
        assert env["DJANGO_SETTINGS_MODULE"] == "okgin_project.settings.production"
        assert env["SECRET_KEY"] == "${SECRET_KEY:?set SECRET_KEY}"
        assert env["LOG_FORMAT"] == "json"
        assert services[name]["build"] == "."


def test_dockerfile_installs_the_wheel_and_collects_static_files():
    dockerfile = (ROOT / "Dockerfile").read_text()
    copies = re.findall(r"^COPY (.+)$", dockerfile, flags=re.M)
    assert copies == [". .", "--from=wheel /wheels /wheels"]  # no hand-picked source folders
    assert "pip wheel" in dockerfile and 'pip install --no-cache-dir "$(ls /wheels/*.whl)[fcm,apns]"' in dockerfile
    assert "django-admin collectstatic --noinput" in dockerfile
    cmd = re.search(r"^CMD (.+)$", dockerfile, flags=re.M).group(1)
    assert cmd == '["gunicorn", "-c", "python:okgin_project.gunicorn_conf", "okgin_project.wsgi"]'
    assert compose_services()["web"]["command"] == ["gunicorn", "-c", "python:okgin_project.gunicorn_conf",
                                                    "okgin_project.wsgi"]


def test_every_documented_worker_command_leaves_out_mingle_and_gossip():
    # A worker reconnecting after a Redis outage could hang in mingle's sync and stop consuming
    # (celery #8030); the Redis fault test caught it once in 20 outages.
    commands = [" ".join(compose_services()["worker"]["command"])]
    for page in ("docs/operations.md", "docs/systemd/okgin-worker.service"):
        commands += [line for line in (ROOT / page).read_text().splitlines() if "okgin_project worker" in line]
    assert len(commands) >= 4, commands
    for command in commands:
        assert "--without-mingle" in command and "--without-gossip" in command, command
