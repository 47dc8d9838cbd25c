"""The local web analyser behind ``mscsp serve`` (needs the ``web`` extra).

:mod:`mscsp.web.service` holds what the API does (plain Python); :mod:`mscsp.web.app` wraps
it in a Starlette application with the page in ``static/``. Nothing here is imported by
``import mscsp``.
"""
