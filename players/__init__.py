"""Player profiles: humans (linked to Django users) and AI opponents."""
