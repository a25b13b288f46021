import pytest


@pytest.fixture(autouse=True)
def _runs_of_one_day_not_held_back(settings):
    """These tests run the daily tasks several times within one day (each run stands for a later day): the
    collision and card budgets would hold the later runs back. A test of the budgets sets a vault's own."""
    settings.DISCOVERY_DAILY_CALLS = {**settings.DISCOVERY_DAILY_CALLS, "collisions": 100, "cards": 100}
