"""okgin's database backends (see :mod:`okgin_project.db.postgresql`)."""
