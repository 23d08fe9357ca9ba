"""Django's PostgreSQL backend with a connection pool that recovers at once from a server restart
(:mod:`okgin_project.db.postgresql.base`)."""
