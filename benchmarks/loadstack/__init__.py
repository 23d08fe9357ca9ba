"""The stack ``benchmarks/load.py`` starts: production settings plus two bare reference endpoints and
a query counter, mounted only here (``loadstack.settings``, ``loadstack.wsgi``), never in a deployment."""
