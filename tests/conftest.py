"""Shared test configuration: hypothesis profile with no deadline (CPU timing varies) and derandomised runs."""

from hypothesis import settings

settings.register_profile("posgeom", deadline=None, derandomize=True, max_examples=60)
settings.load_profile("posgeom")
