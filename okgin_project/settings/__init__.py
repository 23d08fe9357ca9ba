"""Split settings: ``base`` (shared), ``local``, ``test``, ``production``."""
